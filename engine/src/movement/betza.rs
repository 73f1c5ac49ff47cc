//! The Betza subset this engine understands.
//!
//! Atoms: leapers `W F D A N C H` (and `K` = `WF`), riders `R B Q`. Modifiers before an atom:
//! `m` (move only), `c` (capture only), `p` (hop: capture by jumping exactly one piece, only
//! with `c` on a rider, giving the cannon `mRcpR`). Pawns are not described in Betza: their
//! rules (direction, double step, promotion) belong to the variant spec.

use std::fmt;

/// How a move component may be used.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Mode {
    /// Moves to empty squares and captures.
    Both,
    /// Only moves to empty squares.
    MoveOnly,
    /// Only captures.
    CaptureOnly,
}

impl Mode {
    const fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Self::MoveOnly, Self::MoveOnly) => Self::MoveOnly,
            (Self::CaptureOnly, Self::CaptureOnly) => Self::CaptureOnly,
            _ => Self::Both,
        }
    }

    /// True when this component can capture.
    pub(crate) const fn captures(self) -> bool {
        !matches!(self, Self::MoveOnly)
    }
}

/// A leaper atom: the jump (a, b) in all eight symmetric directions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Atom {
    /// Wazir (1,0).
    W,
    /// Ferz (1,1).
    F,
    /// Dabbaba (2,0).
    D,
    /// Alfil (2,2).
    A,
    /// Knight (2,1).
    N,
    /// Camel (3,1).
    C,
    /// Threeleaper (3,0).
    H,
}

impl Atom {
    /// The leap as (long, short) components.
    pub(crate) const fn leap(self) -> (i8, i8) {
        match self {
            Self::W => (1, 0),
            Self::F => (1, 1),
            Self::D => (2, 0),
            Self::A => (2, 2),
            Self::N => (2, 1),
            Self::C => (3, 1),
            Self::H => (3, 0),
        }
    }

    /// Every (file, rank) offset of this leap.
    pub(crate) fn offsets(self) -> Vec<(i8, i8)> {
        let (a, b) = self.leap();
        let mut v = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            for sx in [1, -1] {
                for sy in [1, -1] {
                    let o = (x * sx, y * sy);
                    if !v.contains(&o) {
                        v.push(o);
                    }
                }
            }
        }
        v
    }

    const fn letter(self) -> char {
        match self {
            Self::W => 'W',
            Self::F => 'F',
            Self::D => 'D',
            Self::A => 'A',
            Self::N => 'N',
            Self::C => 'C',
            Self::H => 'H',
        }
    }
}

/// The movement of a non-pawn piece.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct Movement {
    /// Leaps, each with how it may be used.
    pub leaps: Vec<(Atom, Mode)>,
    /// Orthogonal riding (rook lines), if any.
    pub orthogonal: Option<Mode>,
    /// Diagonal riding (bishop lines), if any.
    pub diagonal: Option<Mode>,
    /// Captures by hopping exactly one piece along rook lines (cannon).
    pub orthogonal_hop_capture: bool,
}

/// Why a Betza string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BetzaError {
    /// A letter that is not an atom or modifier of the subset.
    #[error("unsupported Betza letter {letter:?} in {betza:?}")]
    Unsupported {
        /// The letter.
        letter: char,
        /// The whole string.
        betza: String,
    },
    /// Modifiers not followed by an atom.
    #[error("dangling modifiers at the end of {0:?}")]
    Dangling(String),
    /// `p` used other than as `cp` on a rook rider.
    #[error("hop modifier only supported as cpR (cannon) in {0:?}")]
    Hop(String),
    /// Nothing to move with.
    #[error("empty Betza string")]
    Empty,
}

impl Movement {
    /// Parses a Betza string of the supported subset (`mRcpR`: moves as a rook, captures by
    /// hopping one screen).
    ///
    /// # Errors
    /// [`BetzaError`] for letters outside the subset or malformed modifiers.
    pub(crate) fn from_betza(betza: &str) -> Result<Self, BetzaError> {
        let mut m = Self::default();
        let mut move_only = false;
        let mut capture_only = false;
        let mut hop = false;
        for ch in betza.chars() {
            let mode = match (move_only, capture_only) {
                (true, false) => Mode::MoveOnly,
                (false, true) => Mode::CaptureOnly,
                _ => Mode::Both,
            };
            let atoms: &[Atom] = match ch {
                'm' => {
                    move_only = true;
                    continue;
                }
                'c' => {
                    capture_only = true;
                    continue;
                }
                'p' => {
                    hop = true;
                    continue;
                }
                'W' => &[Atom::W],
                'F' => &[Atom::F],
                'D' => &[Atom::D],
                'A' => &[Atom::A],
                'N' => &[Atom::N],
                'C' => &[Atom::C],
                'H' => &[Atom::H],
                'K' => &[Atom::W, Atom::F],
                'R' | 'B' | 'Q' => {
                    if hop {
                        if ch != 'R' || mode != Mode::CaptureOnly {
                            return Err(BetzaError::Hop(betza.to_owned()));
                        }
                        m.orthogonal_hop_capture = true;
                    } else {
                        if ch != 'B' {
                            m.orthogonal = Some(m.orthogonal.map_or(mode, |o| o.merge(mode)));
                        }
                        if ch != 'R' {
                            m.diagonal = Some(m.diagonal.map_or(mode, |o| o.merge(mode)));
                        }
                    }
                    (move_only, capture_only, hop) = (false, false, false);
                    continue;
                }
                letter => {
                    return Err(BetzaError::Unsupported {
                        letter,
                        betza: betza.to_owned(),
                    });
                }
            };
            if hop {
                return Err(BetzaError::Hop(betza.to_owned()));
            }
            for &atom in atoms {
                if let Some(entry) = m.leaps.iter_mut().find(|(a, _)| *a == atom) {
                    entry.1 = entry.1.merge(mode);
                } else {
                    m.leaps.push((atom, mode));
                }
            }
            (move_only, capture_only) = (false, false);
        }
        if move_only || capture_only || hop {
            return Err(BetzaError::Dangling(betza.to_owned()));
        }
        if m.leaps.is_empty()
            && m.orthogonal.is_none()
            && m.diagonal.is_none()
            && !m.orthogonal_hop_capture
        {
            return Err(BetzaError::Empty);
        }
        Ok(m)
    }
}

impl fmt::Display for Movement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = |mode: Mode| match mode {
            Mode::Both => "",
            Mode::MoveOnly => "m",
            Mode::CaptureOnly => "c",
        };
        for (atom, mode) in &self.leaps {
            write!(f, "{}{}", prefix(*mode), atom.letter())?;
        }
        match (self.orthogonal, self.diagonal) {
            (Some(o), Some(d)) if o == d => write!(f, "{}Q", prefix(o))?,
            (o, d) => {
                if let Some(o) = o {
                    write!(f, "{}R", prefix(o))?;
                }
                if let Some(d) = d {
                    write!(f, "{}B", prefix(d))?;
                }
            }
        }
        if self.orthogonal_hop_capture {
            write!(f, "cpR")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cannon_moves_as_a_rook_and_captures_by_hopping() {
        let cannon = Movement::from_betza("mRcpR").unwrap();
        assert_eq!(cannon.orthogonal, Some(Mode::MoveOnly));
        assert!(cannon.orthogonal_hop_capture);
    }

    #[test]
    fn parses_the_pieces_of_all_variants() {
        for b in [
            "K", "Q", "R", "B", "NW", "CF", "FDH", "RN", "BN", "WAD", "FAD", "mRcpR", "KN", "KB",
            "KR",
        ] {
            let m = Movement::from_betza(b).unwrap();
            let again = Movement::from_betza(&m.to_string()).unwrap();
            assert_eq!(m, again, "{b} -> {m}");
        }
    }

    #[test]
    fn rejects_outside_the_subset() {
        assert!(matches!(
            Movement::from_betza("Z"),
            Err(BetzaError::Unsupported { .. })
        ));
        assert!(matches!(
            Movement::from_betza("pN"),
            Err(BetzaError::Hop(_))
        ));
        assert!(matches!(
            Movement::from_betza("Rm"),
            Err(BetzaError::Dangling(_))
        ));
        assert!(matches!(Movement::from_betza(""), Err(BetzaError::Empty)));
    }

    #[test]
    fn atoms_have_the_right_number_of_offsets() {
        assert_eq!(Atom::W.offsets().len(), 4);
        assert_eq!(Atom::F.offsets().len(), 4);
        assert_eq!(Atom::N.offsets().len(), 8);
        assert_eq!(Atom::C.offsets().len(), 8);
        assert_eq!(Atom::H.offsets().len(), 4);
    }
}
