//! Playing levels for AI opponents: eight presets from a beginner's level 1 to full strength
//! at level 8, and the measured Elo ladder of each variant.
//!
//! A level is a skill level (which move among the best few the engine picks, see
//! `skill_pick`) plus caps on nodes and time. Nodes, not time, set the strength of the weak
//! levels, so a level plays the same on a fast and on a slow machine and, with a fixed seed,
//! the same game every time; the time caps only keep weak levels from thinking long on a
//! slow machine. Level 8 is the engine at full strength within the request's own limits.
//!
//! The ladder (`engine/levels/ladder.tsv`) is data measured by self-play between neighbouring
//! levels (docs/LEVELS.md has the recipe); it is embedded in the binary and read once.

use std::sync::OnceLock;
use std::time::Duration;

use super::limits::Limits;
use super::options::SearchOptions;

/// Highest (full-strength) level.
pub const MAX_LEVEL: u8 = 8;

/// One playing level's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// The level, 1..=8.
    pub level: u8,
    /// Skill level 0..=19 that picks among the best moves at random; `None` = best move.
    pub skill_level: Option<u8>,
    /// Node cap per move.
    pub max_nodes: Option<u64>,
    /// Time cap per move.
    pub max_movetime: Option<Duration>,
}

const fn level(level: u8, skill: Option<u8>, nodes: u64, millis: u64) -> Level {
    Level {
        level,
        skill_level: skill,
        max_nodes: Some(nodes),
        max_movetime: Some(Duration::from_millis(millis)),
    }
}

/// The eight levels, weakest first. Below level 7 a level plays a skill level: a seeded
/// random pick among the best four moves that favours good moves and makes a blunder's chance
/// fall off exponentially with its cost (see `skill_pick`), which keeps the weak levels
/// human-like and varied. Up to level 6 each step raises the skill, which cools the pick and
/// deepens the depth cap, and multiplies the nodes by about 2.5, so every step gains on both
/// counts. Level 7 has about level 6's nodes but plays its best move and spends them all on
/// one line (a skill level searches four), which is worth a full step by itself; level 8
/// differs from level 7 by nodes alone. The measured Elo of
/// each step is in the ladder.
pub const LEVELS: [Level; 8] = [
    level(1, Some(0), 100, 50),
    level(2, Some(4), 300, 100),
    level(3, Some(7), 800, 150),
    level(4, Some(10), 2_000, 200),
    level(5, Some(13), 5_000, 300),
    level(6, Some(18), 14_000, 400),
    level(7, None, 16_000, 600),
    Level {
        level: 8,
        skill_level: None,
        max_nodes: None,
        max_movetime: None,
    },
];

impl Level {
    /// The settings of `level` (1..=8).
    pub fn get(level: u8) -> Option<&'static Level> {
        LEVELS.get(usize::from(level).checked_sub(1)?)
    }

    /// The depth cap that comes with the skill level (the search's `1 + skill / 2`), if any.
    pub fn max_depth(&self) -> Option<u32> {
        self.skill_level.map(|s| 1 + u32::from(s) / 2)
    }

    /// Applies the level to a search: the caps are combined with the request's limits (the
    /// smaller wins) and the skill level replaces the options' one. A weak level searches with
    /// one thread, so that a fixed seed gives the same move every time.
    pub fn apply(&self, limits: &mut Limits, options: &mut SearchOptions) {
        if let Some(cap) = self.max_nodes {
            limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
        }
        if let Some(cap) = self.max_movetime {
            limits.movetime = Some(limits.movetime.map_or(cap, |t| t.min(cap)));
        }
        if self.level < MAX_LEVEL {
            options.skill_level = self.skill_level;
            limits.threads = 1;
        }
    }
}

/// A level's measured strength in one variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelElo {
    /// The level.
    pub level: u8,
    /// Elo relative to level 8 (0 for level 8).
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`, the steps' intervals added in quadrature.
    pub margin: f64,
    /// Games of the measured step from this level to the next (0 for level 8).
    pub games: u32,
}

/// The embedded ladder file: `variant level elo_to_next margin games` rows.
const LADDER: &str = include_str!("../../levels/ladder.tsv");

/// One measured step of the ladder file.
#[derive(Clone, Copy, Debug)]
struct Step {
    elo_to_next: f64,
    margin: f64,
    games: u32,
}

/// Parses the ladder file into `(variant, level, step)` rows; `None` for a malformed file (a
/// unit test keeps the shipped one well-formed).
fn parse_ladder(text: &str) -> Option<Vec<(String, u8, Step)>> {
    let mut rows = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split_whitespace();
        let variant = f.next()?.to_owned();
        let level: u8 = f.next()?.parse().ok()?;
        let step = Step {
            elo_to_next: f.next()?.parse().ok()?,
            margin: f.next()?.parse().ok()?,
            games: f.next()?.parse().ok()?,
        };
        if !(1..MAX_LEVEL).contains(&level) || f.next().is_some() {
            return None;
        }
        rows.push((variant, level, step));
    }
    Some(rows)
}

/// The measured ladder of `variant`: every level's Elo relative to level 8, or `None` when the
/// variant's seven steps have not all been measured.
pub fn ladder(variant: &str) -> Option<[LevelElo; 8]> {
    static ROWS: OnceLock<Vec<(String, u8, Step)>> = OnceLock::new();
    ladder_of(
        ROWS.get_or_init(|| parse_ladder(LADDER).unwrap_or_default()),
        variant,
    )
}

/// [`ladder`] over parsed rows.
fn ladder_of(rows: &[(String, u8, Step)], variant: &str) -> Option<[LevelElo; 8]> {
    let mut steps = [None; MAX_LEVEL as usize - 1];
    for (name, level, step) in rows {
        if name == variant {
            steps[usize::from(*level) - 1] = Some(*step);
        }
    }
    let mut out = [LevelElo {
        level: MAX_LEVEL,
        elo: 0.0,
        margin: 0.0,
        games: 0,
    }; 8];
    // Walk down from level 8: a level is its upper neighbour minus the step between them.
    let (mut elo, mut variance) = (0.0, 0.0);
    for level in (1..MAX_LEVEL).rev() {
        let step = steps[usize::from(level) - 1]?;
        elo -= step.elo_to_next;
        variance += step.margin * step.margin;
        out[usize::from(level) - 1] = LevelElo {
            level,
            elo,
            margin: f64::sqrt(variance),
            games: step.games,
        };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_get_stronger_step_by_step() {
        for pair in LEVELS.windows(2) {
            let (weak, strong) = (pair[0], pair[1]);
            assert_eq!(weak.level + 1, strong.level);
            assert!(strong.max_nodes.unwrap_or(u64::MAX) > weak.max_nodes.unwrap_or(0));
            assert!(strong.skill_level.unwrap_or(20) >= weak.skill_level.unwrap_or(20));
        }
        assert_eq!(Level::get(0), None);
        assert_eq!(Level::get(9), None);
        assert_eq!(Level::get(8).map(|l| l.skill_level), Some(None));
    }

    #[test]
    fn a_level_caps_the_request_and_keeps_smaller_limits() {
        let mut limits = Limits {
            nodes: Some(100),
            movetime: Some(Duration::from_secs(5)),
            threads: 4,
            ..Limits::default()
        };
        let mut options = SearchOptions::default();
        LEVELS[3].apply(&mut limits, &mut options);
        assert_eq!(limits.nodes, Some(100));
        assert_eq!(limits.movetime, Some(Duration::from_millis(200)));
        assert_eq!((limits.threads, options.skill_level), (1, Some(10)));
        let mut full = Limits {
            threads: 4,
            ..Limits::default()
        };
        LEVELS[7].apply(&mut full, &mut options);
        assert_eq!((full.nodes, full.threads), (None, 4));
    }

    #[test]
    fn the_shipped_ladder_parses_and_is_strictly_ordered() {
        let rows = parse_ladder(LADDER).expect("ladder.tsv is well-formed");
        assert!(parse_ladder("opulent 9 10 5 100").is_none());
        assert!(parse_ladder("opulent 3 x 5 100").is_none());
        for (variant, _, step) in &rows {
            assert!(
                step.elo_to_next > 0.0,
                "{variant}: every step must gain strength"
            );
        }
        for variant in ["chess", "opulent", "soho", "decima", "orphic"] {
            let ladder = ladder(variant).expect("every built-in variant has a measured ladder");
            assert!(ladder[..7].iter().all(|l| l.games >= 100), "{variant}");
        }
        for variant in rows.iter().map(|r| r.0.as_str()) {
            if let Some(ladder) = ladder(variant) {
                assert!(ladder.windows(2).all(|w| w[0].elo < w[1].elo), "{variant}");
                assert!(ladder[7].elo.abs() < 1e-9);
            }
        }
    }

    #[test]
    fn the_ladder_adds_steps_downward() {
        let text =
            "x 7 100 20 100\nx 6 50 15 100\nx 5 1 1 1\nx 4 1 1 1\nx 3 1 1 1\nx 2 1 1 1\nx 1 1 1 1";
        let rows = parse_ladder(text).expect("parses");
        let ladder = ladder_of(&rows, "x").expect("all seven steps");
        assert_eq!(
            (ladder[6].elo, ladder[6].margin, ladder[6].games),
            (-100.0, 20.0, 100)
        );
        assert!((ladder[5].elo + 150.0).abs() < 1e-9 && (ladder[5].margin - 25.0).abs() < 1e-9);
        assert!((ladder[0].elo + 155.0).abs() < 1e-9);
        assert!(ladder_of(&rows[..6], "x").is_none(), "a missing step");
        assert!(ladder_of(&rows, "y").is_none());
        assert!(parse_ladder("x 7 100 20").is_none());
    }
}
