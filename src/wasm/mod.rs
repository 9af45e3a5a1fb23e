//! WebAssembly bindings: thin wrappers over the core, mirroring its names. No
//! logic of their own: parse options, call the core, turn errors into JS errors.

mod errors;
mod owner;

pub use errors::to_js_error;
pub use owner::DataOwner;
