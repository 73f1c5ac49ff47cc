//! Piece movement: a Betza-notation subset, and the attack tables built from it.

pub(crate) mod attacks;
mod betza;

pub(crate) use attacks::{Direction, Tables};
pub use betza::BetzaError;
pub(crate) use betza::{Atom, Mode, Movement};
