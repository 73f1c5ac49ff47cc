//! How a search plays, as opposed to what bounds it ([`Limits`](super::Limits)): the feature
//! switches self-play comparisons turn off, and the skill level with its seed.
//!
//! Options have a short text form (`null=off,lmr=off,skill=5`) so that a comparison can be
//! named on a command line and in a measurement's write-up alike.

use std::str::FromStr;

use crate::eval::EvalTerms;

/// Search features that can be switched off, for self-play comparisons. All on by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Transposition-table probes and stores.
    pub tt: bool,
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Reverse futility, futility and late-move pruning, internal iterative reduction.
    pub pruning: bool,
    /// Aspiration windows.
    pub aspiration: bool,
    /// Check extensions.
    pub check_extension: bool,
    /// Quiet moves a rule family's quiescence hook selects (Decima: moves onto the tenth
    /// rank).
    pub quiet_hook: bool,
    /// Quiet-move ordering by threats: escapes from a cheaper enemy piece's attack first,
    /// steps into one last.
    pub threat_order: bool,
    /// Evaluation terms.
    pub eval: EvalTerms,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            tt: true,
            null_move: true,
            lmr: true,
            pruning: true,
            aspiration: true,
            check_extension: true,
            quiet_hook: true,
            threat_order: true,
            eval: EvalTerms::default(),
        }
    }
}

/// How a search plays: its features, and the skill level with the seed of its random choice.
///
/// The default is full strength with every feature on.
///
/// # Examples
/// ```
/// use variant_engine::SearchOptions;
/// let weak: SearchOptions = "null=off,skill=5".parse().unwrap();
/// assert!(!weak.features.null_move && weak.features.lmr);
/// assert_eq!(weak.skill_level, Some(5));
/// assert!("null".parse::<SearchOptions>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Search features (all on by default).
    pub features: Features,
    /// Playing strength 0..=20; `None` (or 20) = full strength.
    pub skill_level: Option<u8>,
    /// Seed for the skill level's random choice (the search is deterministic given it).
    pub seed: u64,
    /// Start from an empty transposition table and without the statistics earlier searches
    /// learned (the move-ordering histories), so that a seeded, node-limited,
    /// one-thread search gives the same answer whatever was searched before it.
    pub fresh_table: bool,
}

/// Why an options string was rejected: the item that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid engine config item {0:?} (expected e.g. null=off,lmr=off,tt=off,prune=off,asp=off,ext=off,mobility=off,pst=off,pawns=off,king=off,threats=off,decima=off,drops=off,qhook=off,evade=off,skill=5)"
)]
pub struct SearchOptionsError(pub String);

impl FromStr for SearchOptions {
    type Err = SearchOptionsError;

    /// Parses `key=value` items separated by commas (`on`/`off`, `skill=0..20`); empty =
    /// defaults. The seed is not part of the text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut options = Self::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let err = || SearchOptionsError(item.to_owned());
            let (key, value) = item.split_once('=').ok_or_else(err)?;
            let on = match value {
                "on" | "1" | "true" => true,
                "off" | "0" | "false" => false,
                _ if key == "skill" => false,
                _ => return Err(err()),
            };
            let f = &mut options.features;
            match key {
                "tt" => f.tt = on,
                "null" => f.null_move = on,
                "lmr" => f.lmr = on,
                "prune" => f.pruning = on,
                "asp" => f.aspiration = on,
                "ext" => f.check_extension = on,
                "mobility" => f.eval.mobility = on,
                "pst" => f.eval.pst = on,
                "pawns" => f.eval.pawns = on,
                "king" => f.eval.king_safety = on,
                "threats" => f.eval.threats = on,
                "decima" => f.eval.decima = on,
                "drops" => f.eval.drops = on,
                "qhook" => f.quiet_hook = on,
                "evade" => f.threat_order = on,
                "skill" => {
                    let level: u8 = value.parse().map_err(|_| err())?;
                    if level > 20 {
                        return Err(err());
                    }
                    options.skill_level = (level < 20).then_some(level);
                }
                _ => return Err(err()),
            }
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let c: SearchOptions = "null=off,lmr=off,skill=5,mobility=off".parse().unwrap();
        assert!(!c.features.null_move && !c.features.lmr && !c.features.eval.mobility);
        let t: SearchOptions = "threats=off".parse().unwrap();
        assert!(!t.features.eval.threats && t.features.eval.mobility);
        assert!(c.features.tt);
        assert_eq!(c.skill_level, Some(5));
        let c: SearchOptions = "decima=off,drops=off,qhook=off".parse().unwrap();
        assert!(!c.features.eval.decima && !c.features.eval.drops && !c.features.quiet_hook);
        assert!(c.features.eval.pst && c.features.null_move);
        let e: SearchOptions = "evade=off".parse().unwrap();
        assert!(!e.features.threat_order && e.features.quiet_hook);
        assert!("bogus=on".parse::<SearchOptions>().is_err());
        assert!("null".parse::<SearchOptions>().is_err());
    }
}
