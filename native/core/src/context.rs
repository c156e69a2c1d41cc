//! What the calls of one stream share (`toolparse.engine.calls.CallContext`),
//! as the engine reads it: the declared tools (their names, schemas and
//! property names) and the core's call services ([`RustCalls`]: coercion,
//! plans, the literal and fragment readers, the inline coercer).
//!
//! The tools are shared by every parser made with the same tools (a server
//! makes one per request): what their schemas give (members' plans, each
//! tool's property names) is worked out once. Ids and indices are the host's
//! ([`crate::host::Host::assign`]): a caller's factory or seed may make them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::coercion::oracle::RustError;
use crate::coercion::Value;
use crate::lexicon::{Name, Names, TagContext};
use crate::rust_calls::{RustCalls, RustTools};

/// A tool's property names, sorted, as code points (None: any name).
pub type PropertyNames = Option<Arc<Vec<Vec<u32>>>>;

/// The declared tools.
pub struct Tools {
    /// Their names, sorted (`CallContext.tool_names`), as code points.
    pub names: Vec<Vec<u32>>,
    /// Their schemas, as the core reads them (and what is worked out of them).
    pub core: Arc<RustTools>,
    /// Each tool's property names, once worked out (`CallContext._property_names`).
    property_names: Mutex<HashMap<Vec<u8>, PropertyNames>>,
}

impl Tools {
    /// The tools `core` (their names sorted as Python sorts them: by code point).
    pub fn new(core: Arc<RustTools>) -> Tools {
        let mut names: Vec<Vec<u32>> = core
            .names()
            .iter()
            .map(|name| name.chars().map(u32::from).collect())
            .collect();
        names.sort_unstable();
        Tools {
            names,
            core,
            property_names: Mutex::default(),
        }
    }

    /// Whether a tool of this name (generalized UTF-8) is declared.
    pub fn declares(&self, name: &[u8]) -> bool {
        self.core.get(name).is_some()
    }
}

/// The stream's call context, as the engine reads it (see the module docs).
pub struct Context {
    /// What a call needs, answered by the core (coercion, plans, values).
    pub services: RustCalls,
    /// (shared by the parsers made with the same tools)
    pub tools: Option<Arc<Tools>>,
    pub coerce: bool,
    pub max_depth: usize,
}

impl Context {
    /// `CallContext(tools, max_depth=max_depth, coerce=coerce)`'s part the
    /// engine reads. Fails where `max_depth` is not in 1 to 100.
    pub fn new(
        tools: Option<Arc<Tools>>,
        max_depth: usize,
        coerce: bool,
    ) -> Result<Context, RustError> {
        let services = RustCalls::new(
            tools.as_ref().map(|t| t.core.clone()),
            max_depth,
            coerce,
            None,
        )?;
        Ok(Context {
            services,
            tools,
            coerce,
            max_depth,
        })
    }

    /// The context of another stream with these tools and options.
    pub fn fresh(&self) -> Context {
        Context {
            services: self.services.fresh(),
            tools: self.tools.clone(),
            coerce: self.coerce,
            max_depth: self.max_depth,
        }
    }

    /// `CallContext.is_known(name)`: with no tools declared, any name is.
    pub fn is_known(&self, name: &[u8]) -> bool {
        self.tools.as_ref().is_none_or(|tools| tools.declares(name))
    }

    /// Whether tools are declared and one is named `name`.
    pub fn declares(&self, name: &[u8]) -> bool {
        self.tools
            .as_ref()
            .is_some_and(|tools| tools.declares(name))
    }

    /// `CallContext.schema_of(name)`.
    pub fn schema_of(&self, name: &[u8]) -> Option<&Value> {
        self.services.schema_of(name)
    }

    /// `CallContext.property_names_of(name)`, as code points (worked out once
    /// per tool, for every parser of the tools).
    pub fn property_names_of(&self, name: &[u8]) -> PropertyNames {
        let tools = self.tools.as_ref()?;
        let lock = || {
            tools
                .property_names
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if let Some(known) = lock().get(name) {
            return known.clone();
        }
        let names = self.services.property_names_of(name).map(|names| {
            Arc::new(
                names
                    .iter()
                    .map(|name| crate::wide::chars(name).collect())
                    .collect(),
            )
        });
        // (declared names only: the model cannot grow the table)
        if tools.declares(name) {
            lock().insert(name.to_vec(), names.clone());
        }
        names
    }

    /// The visible text's tag context.
    pub fn text_context(&self) -> TextContext<'_> {
        TextContext {
            tools: self.tools.as_ref().map(|t| PointNames(&t.names)),
        }
    }
}

/// The names of a `Vec` of code points (sorted).
pub struct PointNames<'a>(pub &'a [Vec<u32>]);

impl Names for PointNames<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn get(&self, i: usize) -> Name<'_> {
        Name::U32(&self.0[i])
    }
}

/// The visible text's tag context: only the tools are known there.
pub struct TextContext<'a> {
    pub tools: Option<PointNames<'a>>,
}

impl TagContext for TextContext<'_> {
    fn key(&self) -> Option<Name<'_>> {
        None
    }
    fn call_name(&self) -> Option<Name<'_>> {
        None
    }
    fn tool_names(&self) -> Option<&dyn Names> {
        self.tools.as_ref().map(|t| t as &dyn Names)
    }
    fn property_names(&self) -> Option<&dyn Names> {
        None
    }
    fn given(&self, _name: Name<'_>) -> bool {
        false
    }
}
