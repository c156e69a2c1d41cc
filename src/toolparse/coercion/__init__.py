"""JSON-Schema-driven coercion of argument values (arrives with the coercion issue).

The engine already writes arguments through one point per value
(:class:`toolparse.engine.json_stream.JsonRewriter`), which is where
coercion will run inline.
"""
