"""Tool choice, forced-answer schemas and provider wire formats (arrives with the tool-choice issue)."""
