//! The calls' [`calls::Host`] inside the engine, over any [`Host`]: the
//! core's services answer (coercion, plans, the literal, fragment and inline
//! readers), the host names each call it starts, and the sink takes the
//! call's start and argument deltas.

use std::marker::PhantomData;

use crate::calls::{self, Coerced, Converted, Plan};
use crate::calls_json::JsonHost;
use crate::coercion::oracle::{RustError, RustTyper};
use crate::coercion::Value;
use crate::context::Context;
use crate::host::{Bug, Host, Sink};
use crate::rust_calls::{self, Convert, RustCalls};
use crate::sink::Text;
use crate::typing::ValueTyper;

/// The calls' host in the engine: the stream's context, the host and the
/// read's sink, the call's announcement (once started) and its converter.
pub struct CallEnv<'a, 'o, H: Host> {
    pub host: &'a mut H,
    pub ctx: &'a mut Context,
    pub out: &'a mut H::Out<'o>,
    /// The call, once started (as its events name it).
    pub call: &'a mut Option<H::Call>,
    pub convert: Convert,
}

impl<H: Host> CallEnv<'_, '_, H> {
    /// The core's answers, converting as this call does.
    fn services(&mut self) -> &mut RustCalls {
        self.ctx.services.convert = self.convert;
        &mut self.ctx.services
    }
}

impl<H: Host> calls::Host for CallEnv<'_, '_, H> {
    type Value = Value;
    type Error = H::Error;

    fn is_known(&mut self, name: &[u8]) -> Result<bool, H::Error> {
        Ok(self.ctx.is_known(name))
    }

    fn start(&mut self, name: &[u8]) -> Result<(), H::Error> {
        let call = self.host.assign(self.out)?;
        self.out.call_start(&call, name)?;
        *self.call = Some(call);
        Ok(())
    }

    fn delta(&mut self, piece: &[u8]) -> Result<(), H::Error> {
        let Some(call) = self.call.as_ref() else {
            return Err(H::bug(Bug::value("a delta of a call not started")));
        };
        self.out.call_delta(call, Text::Wide(piece))
    }

    fn member_plan(
        &mut self,
        name: &[u8],
        key: &[u8],
        root: &Value,
    ) -> Result<Plan<Value>, H::Error> {
        self.services()
            .member_plan(name, key, root)
            .map_err(H::core_error)
    }

    fn convert(&mut self, text: &str, key: &[u8]) -> Result<Converted<Value>, H::Error> {
        if self.convert == Convert::Literal {
            if let Some(read) = rust_calls::literal_of(text, key, self.ctx.max_depth) {
                return Ok(read);
            }
            // (what the core's reader declines, the host may read: Python's
            // reader, a `\N{...}` escape, a very long integer, deep nesting)
            match self.host.literal(self.out, text, self.ctx.max_depth)? {
                Some(Ok(value)) => return Ok(Converted::Value(value)),
                Some(Err(message)) => {
                    return Ok(Converted::Invalid(rust_calls::literal_problem(
                        key, &message,
                    )));
                }
                None => {}
            }
        }
        self.services().convert(text, key).map_err(H::core_error)
    }

    fn coerce_at(
        &mut self,
        value: Value,
        schema: Option<&Value>,
        root: Option<&Value>,
        key: &[u8],
    ) -> Result<Coerced<Value>, H::Error> {
        self.services()
            .coerce_at(value, schema, root, key)
            .map_err(H::core_error)
    }

    fn list(&mut self, values: Vec<Value>) -> Result<Value, H::Error> {
        Ok(Value::array(values))
    }

    fn canonical_json(&mut self, value: &Value, out: &mut Vec<u8>) -> Result<(), H::Error> {
        out.extend_from_slice(&value.canonical_json());
        Ok(())
    }

    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), H::Error> {
        self.services()
            .coerce_json(text, out)
            .map_err(H::core_error)
    }

    fn key_error(&mut self, key: &[u8]) -> H::Error {
        H::core_error(RustError::Key(key.to_vec()))
    }

    fn none(&mut self) -> Value {
        Value::Null
    }

    fn sole_string_of(&mut self, root: Option<&Value>) -> Result<Option<Value>, H::Error> {
        self.services().sole_string_of(root).map_err(H::core_error)
    }
}

/// The core's inline coercer, failing as the host does.
pub struct HostTyper<H>(pub RustTyper, PhantomData<fn() -> H>);

impl<H> HostTyper<H> {
    pub fn new(typer: RustTyper) -> Self {
        HostTyper(typer, PhantomData)
    }
}

impl<H: Host> ValueTyper for HostTyper<H> {
    type Error = H::Error;

    fn begin_value(&mut self, first: u32) -> Result<bool, H::Error> {
        self.0.begin_value(first).map_err(H::core_error)
    }
    fn key(&mut self, key: &[u8]) -> Result<bool, H::Error> {
        self.0.key(key).map_err(H::core_error)
    }
    fn array_item(&mut self) -> Result<(), H::Error> {
        self.0.array_item().map_err(H::core_error)
    }
    fn end_container(&mut self) -> Result<(), H::Error> {
        self.0.end_container().map_err(H::core_error)
    }
    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> Result<(), H::Error> {
        self.0
            .finish_buffered(canonical, out)
            .map_err(H::core_error)
    }
}

impl<H: Host> JsonHost for CallEnv<'_, '_, H> {
    type Typer = HostTyper<H>;

    fn typer_for(&mut self, name: &[u8]) -> Result<Option<HostTyper<H>>, H::Error> {
        Ok(self
            .services()
            .typer_for(name)
            .map_err(H::core_error)?
            .map(HostTyper::new))
    }

    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Option<Value>, H::Error> {
        self.services()
            .coerce_held(name, held, out)
            .map_err(H::core_error)
    }

    fn issues(
        &mut self,
        typer: Option<&HostTyper<H>>,
        extra: Option<&Value>,
    ) -> Result<Value, H::Error> {
        self.services()
            .issues(typer.map(|t| &t.0), extra)
            .map_err(H::core_error)
    }
}
