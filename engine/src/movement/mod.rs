//! Piece movement: a Betza-notation subset, and the attack tables built from it.

pub mod attacks;
pub mod betza;

pub use attacks::{Direction, Tables};
pub use betza::{Atom, BetzaError, Mode, Movement};
