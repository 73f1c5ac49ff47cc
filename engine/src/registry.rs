//! Turning specs into variants, and the registry of the built-in ones.
//!
//! [`VariantSpec::validate`] finishes what `variant/` starts: once the tables are derived it sets
//! up the start position, which needs the FEN reader, so it sits here, above the position, rule
//! and notation code (and `variant/` stays below them all). The [`Registry`] validates the
//! built-in specs once and keeps each start position, since most requests start from one.

use std::sync::Arc;

use crate::piece::{ByColor, Color, MAX_KINDS, PieceKind};
use crate::position::Position;
use crate::variant::{Variant, VariantSpec, VariantSpecError, builtin};

impl VariantSpec {
    /// Checks the spec and derives its tables; the start FEN must describe a valid position.
    ///
    /// # Errors
    /// [`VariantSpecError`] naming the first inconsistency.
    pub fn validate(self) -> Result<Arc<Variant>, VariantSpecError> {
        let mut variant = Arc::new(Variant::derive(self)?);
        let start = Position::from_fen(variant.clone(), variant.start_fen())
            .map_err(|e| VariantSpecError::StartFen(e.to_string()))?;
        let mut counts = ByColor([[0u8; MAX_KINDS]; 2]);
        for color in Color::ALL {
            for k in 0..variant.kind_count() {
                counts[color][k] = start.pieces_of(color, PieceKind(k as u8)).count() as u8;
            }
        }
        drop(start);
        Arc::get_mut(&mut variant)
            .expect("no other reference to a variant being built")
            .initial_counts = counts;
        Ok(variant)
    }
}

/// Why a variant name was not found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {} (known: {known})", crate::quote::quote(.name))]
pub struct UnknownVariant {
    /// The name asked for.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

/// The set of variants a program offers. Built once at startup and shared; no globals.
///
/// # Examples
/// ```
/// use variant_engine::Registry;
/// let registry = Registry::builtin();
/// let opulent = registry.get("opulent").unwrap();
/// assert_eq!((opulent.files(), opulent.ranks()), (10, 10));
/// assert!(registry.get("xiangqi").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Registry {
    variants: Vec<Arc<Variant>>,
    /// Each variant's start position, parsed once: most service requests start from it, and
    /// parsing the start FEN was about half of building a request's position.
    starts: Vec<Position>,
}

impl Registry {
    /// The built-in variants.
    pub fn builtin() -> Self {
        let variants = builtin::all()
            .into_iter()
            .map(|spec| spec.validate().expect("built-in variant specs are valid"))
            .collect::<Vec<_>>();
        let starts = variants
            .iter()
            .map(|v| Position::new(Arc::clone(v)))
            .collect();
        Self { variants, starts }
    }

    /// The start position of the variant called `name` (case-insensitive): the same as
    /// `Position::new(registry.get(name)?)`, without parsing the start FEN again.
    ///
    /// # Errors
    /// [`UnknownVariant`] listing the known names.
    pub fn start_position(&self, name: &str) -> Result<Position, UnknownVariant> {
        self.index_of(name).map(|i| self.starts[i].clone())
    }

    /// The variant called `name` (case-insensitive).
    ///
    /// # Errors
    /// [`UnknownVariant`] listing the known names.
    pub fn get(&self, name: &str) -> Result<Arc<Variant>, UnknownVariant> {
        self.index_of(name).map(|i| Arc::clone(&self.variants[i]))
    }

    /// Where the variant called `name` (case-insensitive) is in the registry.
    fn index_of(&self, name: &str) -> Result<usize, UnknownVariant> {
        self.variants
            .iter()
            .position(|v| v.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownVariant {
                name: name.to_owned(),
                known: self.names().join(", "),
            })
    }

    /// Every variant, in registry order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Variant>> {
        self.variants.iter()
    }

    /// Every variant name.
    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::builtin;
    use crate::{Color, Role, VariantSpecError};

    #[test]
    fn every_builtin_spec_validates() {
        let r = Registry::builtin();
        assert!(r.names().contains(&"opulent") && r.names().contains(&"soho"));
        assert_eq!(r.get("OPULENT").unwrap().name(), "opulent");
        let err = r.get("nope").unwrap_err().to_string();
        assert!(err.contains("nope") && err.contains("opulent"), "{err}");
        let err = r.start_position("nope").unwrap_err().to_string();
        assert!(err.contains("nope") && err.contains("opulent"), "{err}");
        for v in r.iter() {
            let start = r.start_position(&v.name().to_uppercase()).unwrap();
            assert_eq!(start, Position::new(Arc::clone(v)), "{}", v.name());
            assert_eq!(start.fen(), v.start_fen(), "{}", v.name());
        }
    }

    #[test]
    fn invalid_specs_are_rejected_with_a_reason() {
        let mut s = builtin::opulent();
        s.pieces[1].letter = 'B';
        assert_eq!(
            s.validate().unwrap_err(),
            VariantSpecError::DuplicateLetter('B')
        );

        let mut s = builtin::opulent();
        s.pieces[5].betza = "CFZ".into();
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::Betza { letter: 'W', .. }
        ));

        let mut s = builtin::chess();
        s.pieces.retain(|p| p.role != Role::RoyalKing);
        assert_eq!(
            s.validate().unwrap_err(),
            VariantSpecError::CastlingWithoutKing
        );

        let mut s = builtin::opulent();
        s.promotion.as_mut().unwrap().choices.push('X');
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::UnknownLetter { letter: 'X', .. }
        ));

        let mut s = builtin::opulent();
        s.size = crate::BoardSize {
            files: 11,
            ranks: 10,
        };
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::BoardSize { .. }
        ));

        let mut s = builtin::opulent();
        s.start_fen = "10/10 w - - 0 1".into();
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::StartFen(_)
        ));

        let mut s = builtin::opulent();
        s.pawns = None;
        assert_eq!(s.validate().unwrap_err(), VariantSpecError::PawnRules);
    }

    #[test]
    fn initial_counts_come_from_the_start_position() {
        let v = Registry::builtin().get("opulent").unwrap();
        let rook = v.kind_by_letter('R').unwrap();
        let queen = v.kind_by_letter('q').unwrap();
        assert_eq!(v.initial_count(Color::White, rook), 2);
        assert_eq!(v.initial_count(Color::Black, queen), 1);
    }
}
