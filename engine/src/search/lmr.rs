//! The late-move reduction table: how many plies a late quiet move is searched shallower, by
//! depth and move number (`0.75 + ln d * ln m / 2.25`), computed once per search because `ln`
//! is too slow for every node.

/// Rows and columns of the table.
const LMR_SIZE: usize = 64;

/// Reductions by depth and move number.
#[derive(Debug)]
pub(crate) struct LmrTable(Vec<[u8; LMR_SIZE]>);

impl LmrTable {
    /// The table.
    pub(crate) fn new() -> Self {
        Self(
            (0..LMR_SIZE)
                .map(|d| {
                    std::array::from_fn(|m| {
                        let r = 0.75 + (d.max(1) as f64).ln() * (m.max(1) as f64).ln() / 2.25;
                        r as u8
                    })
                })
                .collect(),
        )
    }

    /// The reduction of the `moves`-th move at `depth`.
    #[inline]
    pub(crate) fn reduction(&self, depth: i32, moves: usize) -> i32 {
        let d = (depth.max(0) as usize).min(LMR_SIZE - 1);
        i32::from(self.0[d][moves.min(LMR_SIZE - 1)])
    }
}
