//! Throw-away stand-in for the `variant-engine` crate, written against `/work/engine-api.md`.
//!
//! It exists only so the service branch compiles and its tests run before the real engine lands
//! on `main`; it knows orthodox chess only (no castling, no en passant) and a naive material
//! search. Delete this crate once the service depends on `engine/` again.
#![allow(
    missing_docs,
    missing_debug_implementations,
    clippy::all,
    clippy::pedantic
)]

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

/// The set of known variants.
#[derive(Debug)]
pub struct Registry {
    variants: Vec<Arc<Variant>>,
}

impl Registry {
    pub fn builtin() -> Registry {
        let letters = [
            ('K', "King", "K"),
            ('Q', "Queen", "Q"),
            ('R', "Rook", "R"),
            ('B', "Bishop", "B"),
            ('N', "Knight", "N"),
            ('P', "Pawn", "fmWfceF"),
        ];
        let chess = Variant {
            name: "chess".into(),
            files: 8,
            ranks: 8,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            pieces: letters
                .iter()
                .map(|&(letter, name, betza)| PieceDef {
                    letter,
                    name: name.into(),
                    betza: betza.into(),
                })
                .collect(),
            summary: "Orthodox chess (stub: no castling, no en passant).".into(),
        };
        Registry {
            variants: vec![Arc::new(chess)],
        }
    }

    pub fn get(&self, name: &str) -> Result<Arc<Variant>, UnknownVariant> {
        self.variants
            .iter()
            .find(|v| v.name.eq_ignore_ascii_case(name))
            .cloned()
            .ok_or_else(|| UnknownVariant {
                name: name.to_owned(),
                known: self.names().join(", "),
            })
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<Variant>> {
        self.variants.iter()
    }

    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown variant {name:?} (known: {known})")]
pub struct UnknownVariant {
    pub name: String,
    pub known: String,
}

#[derive(Debug)]
pub struct Variant {
    name: String,
    files: u8,
    ranks: u8,
    start_fen: String,
    pieces: Vec<PieceDef>,
    summary: String,
}

impl Variant {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn files(&self) -> u8 {
        self.files
    }
    pub fn ranks(&self) -> u8 {
        self.ranks
    }
    pub fn start_fen(&self) -> &str {
        &self.start_fen
    }
    pub fn pieces(&self) -> &[PieceDef] {
        &self.pieces
    }
    pub fn summary(&self) -> &str {
        &self.summary
    }
    pub fn has_drops(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone)]
pub struct PieceDef {
    pub letter: char,
    pub name: String,
    pub betza: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Color {
    White,
    Black,
}

impl Color {
    fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

type Board = [Option<(Color, char)>; 64];

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move(u32);

impl Move {
    fn new(from: usize, to: usize, promo: Option<char>) -> Move {
        let p = match promo {
            None => 0,
            Some('q') => 1,
            Some('r') => 2,
            Some('b') => 3,
            Some(_) => 4,
        };
        Move((from as u32) | ((to as u32) << 6) | (p << 12))
    }
    fn from(self) -> usize {
        (self.0 & 63) as usize
    }
    fn to(self) -> usize {
        ((self.0 >> 6) & 63) as usize
    }
    fn promo(self) -> Option<char> {
        match self.0 >> 12 {
            1 => Some('q'),
            2 => Some('r'),
            3 => Some('b'),
            4 => Some('n'),
            _ => None,
        }
    }
}

#[derive(Clone)]
struct State {
    board: Board,
    stm: Color,
    halfmove: u32,
    fullmove: u32,
}

#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    st: State,
    stack: Vec<State>,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.fen())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FenError {
    #[error("FEN board has {found} ranks, expected {expected}")]
    RankCount { found: usize, expected: usize },
    #[error("invalid piece letter {0:?} in FEN")]
    BadPiece(char),
    #[error("FEN rank {rank:?} does not have {expected} files")]
    RankWidth { rank: String, expected: usize },
    #[error("invalid side to move {0:?} in FEN (expected w or b)")]
    SideToMove(String),
    #[error("FEN {0:?} is missing fields")]
    MissingFields(String),
    #[error("invalid move counter {0:?} in FEN")]
    Counter(String),
    #[error("FEN has {0} kings for one side, expected exactly one")]
    Kings(usize),
}

#[derive(Debug, thiserror::Error)]
#[error("cannot parse move text {0:?}")]
pub struct MoveTextError(pub String);

#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    Syntax(MoveTextError),
    #[error("illegal move {text:?} in position {fen}")]
    Illegal { text: String, fen: String },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GameStatus {
    Ongoing,
    Finished {
        winner: Option<Color>,
        reason: Termination,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Termination {
    Checkmate,
    Stalemate,
    ThreefoldRepetition,
    FiftyMoveRule,
    TenPoints,
    CheckUnanswered,
    LastUnitCaptured,
    InsufficientMaterial,
}

#[derive(Debug, Clone)]
pub struct MoveDescription {
    pub uci: String,
    pub san: String,
    pub from: Option<String>,
    pub to: String,
    pub promotion: Option<char>,
    pub drop: Option<char>,
    pub relocation: Option<String>,
    pub capture: bool,
    pub check: bool,
}

fn sq_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

fn parse_sq(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    Some(usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a'))
}

const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

fn offset(sq: usize, df: i32, dr: i32) -> Option<usize> {
    let f = (sq % 8) as i32 + df;
    let r = (sq / 8) as i32 + dr;
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as usize)
}

impl Position {
    pub fn new(variant: Arc<Variant>) -> Position {
        let fen = variant.start_fen.clone();
        Position::from_fen(variant, &fen).expect("stub start FEN is valid")
    }

    pub fn from_fen(variant: Arc<Variant>, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 2 {
            return Err(FenError::MissingFields(fen.to_owned()));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(FenError::RankCount {
                found: ranks.len(),
                expected: 8,
            });
        }
        let mut board: Board = [None; 64];
        for (i, rank) in ranks.iter().enumerate() {
            let r = 7 - i;
            let mut f = 0usize;
            for ch in rank.chars() {
                if let Some(d) = ch.to_digit(10) {
                    f += d as usize;
                } else {
                    let up = ch.to_ascii_uppercase();
                    if !"KQRBNP".contains(up) {
                        return Err(FenError::BadPiece(ch));
                    }
                    if f >= 8 {
                        return Err(FenError::RankWidth {
                            rank: (*rank).to_owned(),
                            expected: 8,
                        });
                    }
                    let c = if ch.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    board[r * 8 + f] = Some((c, up));
                    f += 1;
                }
            }
            if f != 8 {
                return Err(FenError::RankWidth {
                    rank: (*rank).to_owned(),
                    expected: 8,
                });
            }
        }
        let stm = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::SideToMove(other.to_owned())),
        };
        let counter = |i: usize, default: u32| -> Result<u32, FenError> {
            fields.get(i).map_or(Ok(default), |s| {
                s.parse().map_err(|_| FenError::Counter((*s).to_owned()))
            })
        };
        let halfmove = counter(4, 0)?;
        let fullmove = counter(5, 1)?;
        for c in [Color::White, Color::Black] {
            let n = board.iter().filter(|p| **p == Some((c, 'K'))).count();
            if n != 1 {
                return Err(FenError::Kings(n));
            }
        }
        Ok(Position {
            variant,
            st: State {
                board,
                stm,
                halfmove,
                fullmove,
            },
            stack: Vec::new(),
        })
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    fn board_fen(board: &Board) -> String {
        let mut s = String::new();
        for r in (0..8).rev() {
            let mut empty = 0;
            for f in 0..8 {
                match board[r * 8 + f] {
                    None => empty += 1,
                    Some((c, p)) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(if c == Color::White {
                            p
                        } else {
                            p.to_ascii_lowercase()
                        });
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s
    }

    pub fn fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            Self::board_fen(&self.st.board),
            if self.st.stm == Color::White {
                'w'
            } else {
                'b'
            },
            self.st.halfmove,
            self.st.fullmove
        )
    }

    pub fn side_to_move(&self) -> Color {
        self.st.stm
    }

    fn attacked(board: &Board, sq: usize, by: Color) -> bool {
        for (df, dr) in KNIGHT {
            if let Some(s) = offset(sq, df, dr) {
                if board[s] == Some((by, 'N')) {
                    return true;
                }
            }
        }
        for (df, dr) in KING {
            if let Some(s) = offset(sq, df, dr) {
                if board[s] == Some((by, 'K')) {
                    return true;
                }
            }
            let diagonal = df != 0 && dr != 0;
            let mut cur = sq;
            while let Some(s) = offset(cur, df, dr) {
                if let Some((c, p)) = board[s] {
                    if c == by && (p == 'Q' || (diagonal && p == 'B') || (!diagonal && p == 'R')) {
                        return true;
                    }
                    break;
                }
                cur = s;
            }
        }
        let dir = if by == Color::White { -1 } else { 1 };
        [-1, 1]
            .iter()
            .any(|&df| offset(sq, df, dir).is_some_and(|s| board[s] == Some((by, 'P'))))
    }

    pub fn in_check(&self) -> bool {
        let us = self.st.stm;
        self.st
            .board
            .iter()
            .position(|p| *p == Some((us, 'K')))
            .is_some_and(|k| Self::attacked(&self.st.board, k, us.other()))
    }

    fn pseudo(&self) -> Vec<Move> {
        let b = &self.st.board;
        let us = self.st.stm;
        let mut out = Vec::new();
        for sq in 0..64 {
            let Some((c, p)) = b[sq] else { continue };
            if c != us {
                continue;
            }
            let add = |to: usize, out: &mut Vec<Move>| match b[to] {
                Some((c2, _)) if c2 == us => {}
                _ => out.push(Move::new(sq, to, None)),
            };
            match p {
                'N' | 'K' => {
                    for (df, dr) in if p == 'N' { KNIGHT } else { KING } {
                        if let Some(to) = offset(sq, df, dr) {
                            add(to, &mut out);
                        }
                    }
                }
                'B' | 'R' | 'Q' => {
                    for (df, dr) in KING {
                        let diagonal = df != 0 && dr != 0;
                        if (p == 'B' && !diagonal) || (p == 'R' && diagonal) {
                            continue;
                        }
                        let mut cur = sq;
                        while let Some(to) = offset(cur, df, dr) {
                            add(to, &mut out);
                            if b[to].is_some() {
                                break;
                            }
                            cur = to;
                        }
                    }
                }
                _ => {
                    let dir = if us == Color::White { 1 } else { -1 };
                    let last = if us == Color::White { 7 } else { 0 };
                    let start = if us == Color::White { 1 } else { 6 };
                    let push = |to: usize, out: &mut Vec<Move>| {
                        if to / 8 == last {
                            for pr in ['q', 'r', 'b', 'n'] {
                                out.push(Move::new(sq, to, Some(pr)));
                            }
                        } else {
                            out.push(Move::new(sq, to, None));
                        }
                    };
                    if let Some(to) = offset(sq, 0, dir).filter(|&t| b[t].is_none()) {
                        push(to, &mut out);
                        if sq / 8 == start {
                            if let Some(to2) = offset(to, 0, dir).filter(|&t| b[t].is_none()) {
                                push(to2, &mut out);
                            }
                        }
                    }
                    for df in [-1, 1] {
                        if let Some(to) = offset(sq, df, dir) {
                            if matches!(b[to], Some((c2, _)) if c2 != us) {
                                push(to, &mut out);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        let mut tmp = self.clone();
        self.pseudo()
            .into_iter()
            .filter(|&m| {
                tmp.play(m);
                let us = tmp.st.stm.other();
                let k = tmp.st.board.iter().position(|p| *p == Some((us, 'K')));
                let ok = k.is_some_and(|k| !Self::attacked(&tmp.st.board, k, us.other()));
                tmp.unmake();
                ok
            })
            .collect()
    }

    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }

    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        let illegal = || MoveError::Illegal {
            text: text.to_owned(),
            fen: self.fen(),
        };
        if text.len() >= 4 && text.is_ascii() {
            if let (Some(from), Some(to)) = (parse_sq(&text[0..2]), parse_sq(&text[2..4])) {
                let promo = match &text[4..] {
                    "" => None,
                    "q" | "r" | "b" | "n" => text[4..].chars().next(),
                    _ => return Err(MoveError::Syntax(MoveTextError(text.to_owned()))),
                };
                let m = Move::new(from, to, promo);
                return if legal.contains(&m) {
                    Ok(m)
                } else {
                    Err(illegal())
                };
            }
        }
        let trimmed = text.trim_end_matches(['+', '#']);
        let valid_san = !trimmed.is_empty()
            && trimmed
                .chars()
                .all(|c| "KQRBNabcdefghx12345678=".contains(c));
        if !valid_san {
            return Err(MoveError::Syntax(MoveTextError(text.to_owned())));
        }
        legal
            .into_iter()
            .find(|&m| self.san(m).trim_end_matches(['+', '#']) == trimmed)
            .ok_or_else(illegal)
    }

    pub fn play(&mut self, m: Move) {
        self.stack.push(self.st.clone());
        let st = &mut self.st;
        let moving = st.board[m.from()];
        let capture = st.board[m.to()].is_some();
        let pawn = matches!(moving, Some((_, 'P')));
        st.board[m.to()] = match (moving, m.promo()) {
            (Some((c, _)), Some(pr)) => Some((c, pr.to_ascii_uppercase())),
            _ => moving,
        };
        st.board[m.from()] = None;
        st.halfmove = if capture || pawn { 0 } else { st.halfmove + 1 };
        if st.stm == Color::Black {
            st.fullmove += 1;
        }
        st.stm = st.stm.other();
    }

    pub fn unmake(&mut self) {
        if let Some(st) = self.stack.pop() {
            self.st = st;
        }
    }

    pub fn uci(&self, m: Move) -> String {
        let mut s = format!("{}{}", sq_name(m.from()), sq_name(m.to()));
        if let Some(p) = m.promo() {
            s.push(p);
        }
        s
    }

    pub fn san(&self, m: Move) -> String {
        let b = &self.st.board;
        let piece = b[m.from()].map_or('P', |(_, p)| p);
        let capture = b[m.to()].is_some();
        let mut s = String::new();
        if piece == 'P' {
            if capture {
                s.push_str(&sq_name(m.from())[..1]);
                s.push('x');
            }
        } else {
            s.push(piece);
            let ambiguous = self
                .legal_moves()
                .into_iter()
                .any(|o| o != m && o.to() == m.to() && b[o.from()].map(|(_, p)| p) == Some(piece));
            if ambiguous {
                s.push_str(&sq_name(m.from()));
            }
            if capture {
                s.push('x');
            }
        }
        s.push_str(&sq_name(m.to()));
        if let Some(p) = m.promo() {
            s.push('=');
            s.push(p.to_ascii_uppercase());
        }
        let mut after = self.clone();
        after.play(m);
        if after.in_check() {
            s.push(if after.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        s
    }

    pub fn describe(&self, m: Move) -> MoveDescription {
        let san = self.san(m);
        MoveDescription {
            uci: self.uci(m),
            check: san.ends_with('+') || san.ends_with('#'),
            san,
            from: Some(sq_name(m.from())),
            to: sq_name(m.to()),
            promotion: m.promo(),
            drop: None,
            relocation: None,
            capture: self.st.board[m.to()].is_some(),
        }
    }

    pub fn status(&self) -> GameStatus {
        let finished = |winner, reason| GameStatus::Finished { winner, reason };
        if self.legal_moves().is_empty() {
            return if self.in_check() {
                finished(Some(self.st.stm.other()), Termination::Checkmate)
            } else {
                finished(None, Termination::Stalemate)
            };
        }
        let key = (Self::board_fen(&self.st.board), self.st.stm);
        let seen = self
            .stack
            .iter()
            .filter(|s| (Self::board_fen(&s.board), s.stm) == key)
            .count();
        if seen >= 2 {
            return finished(None, Termination::ThreefoldRepetition);
        }
        if self.st.halfmove >= 100 {
            return finished(None, Termination::FiftyMoveRule);
        }
        if self
            .st
            .board
            .iter()
            .all(|p| p.is_none() || matches!(p, Some((_, 'K'))))
        {
            return finished(None, Termination::InsufficientMaterial);
        }
        GameStatus::Ongoing
    }
}

pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|m| {
            pos.play(m);
            let n = perft(pos, depth - 1);
            pos.unmake();
            n
        })
        .sum()
}

pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            pos.play(m);
            let n = perft(pos, depth.saturating_sub(1));
            pos.unmake();
            (m, n)
        })
        .collect()
}

pub mod search {
    //! Search types (re-exported at the root).
}

#[derive(Clone, Debug)]
pub struct PoolConfig {
    pub hash_mb: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<Clock>,
    pub infinite: bool,
    pub threads: usize,
    pub multipv: usize,
    pub skill_level: Option<u8>,
    pub seed: u64,
}

#[derive(Clone, Debug)]
pub struct Clock {
    pub wtime: Duration,
    pub btime: Duration,
    pub winc: Duration,
    pub binc: Duration,
    pub movestogo: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    Mate(i32),
}

#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best_move: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    pub lines: Vec<SearchInfo>,
}

#[derive(Debug)]
pub struct SearchPool {
    _config: PoolConfig,
}

struct Ctx<'a> {
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    max_nodes: u64,
    nodes: u64,
    aborted: bool,
}

impl Ctx<'_> {
    fn check(&mut self) -> bool {
        if self.nodes >= self.max_nodes
            || self.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
        self.aborted
    }
}

const MATE: i32 = 100_000;

fn eval(pos: &Position) -> i32 {
    let mut s = 0;
    for p in pos.st.board.iter().flatten() {
        let v = match p.1 {
            'Q' => 900,
            'R' => 500,
            'B' => 330,
            'N' => 320,
            'P' => 100,
            _ => 0,
        };
        s += if p.0 == pos.st.stm { v } else { -v };
    }
    s
}

fn negamax(
    pos: &mut Position,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    ply: i32,
    ctx: &mut Ctx<'_>,
) -> (i32, Vec<Move>) {
    ctx.nodes += 1;
    if ctx.nodes % 256 == 0 && ctx.check() {
        return (0, Vec::new());
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return (if pos.in_check() { -MATE + ply } else { 0 }, Vec::new());
    }
    if depth == 0 {
        return (eval(pos), Vec::new());
    }
    let mut best = (-MATE - 1, Vec::new());
    for m in moves {
        pos.play(m);
        let (s, pv) = negamax(pos, depth - 1, -beta, -alpha, ply + 1, ctx);
        pos.unmake();
        if ctx.aborted {
            return best;
        }
        let s = -s;
        if s > best.0 {
            let mut line = vec![m];
            line.extend(pv);
            best = (s, line);
        }
        alpha = alpha.max(s);
        if alpha >= beta {
            break;
        }
    }
    best
}

impl SearchPool {
    pub fn new(config: PoolConfig) -> SearchPool {
        SearchPool { _config: config }
    }

    pub fn search(
        &self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let mut pos = pos.clone();
        let legal = pos.legal_moves();
        let mut ctx = Ctx {
            stop,
            deadline: limits.movetime.map(|t| start + t),
            max_nodes: limits.nodes.unwrap_or(u64::MAX),
            nodes: 0,
            aborted: false,
        };
        let max_depth = limits.depth.unwrap_or(64).max(1);
        let mut result = SearchResult {
            best_move: legal.first().copied(),
            ponder: None,
            score: Score::Centipawns(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            nps: 0,
            time: Duration::ZERO,
            pv: legal.first().copied().into_iter().collect(),
            lines: Vec::new(),
        };
        if legal.is_empty() {
            return result;
        }
        for depth in 1..=max_depth {
            let (s, pv) = negamax(&mut pos, depth, -MATE - 1, MATE + 1, 0, &mut ctx);
            if ctx.aborted || pv.is_empty() {
                break;
            }
            let time = start.elapsed();
            let score = if s.abs() > MATE - 1000 {
                let plies = MATE - s.abs();
                Score::Mate(if s > 0 { (plies + 1) / 2 } else { -(plies / 2) })
            } else {
                Score::Centipawns(s)
            };
            let info = SearchInfo {
                depth,
                seldepth: depth,
                multipv: 1,
                score,
                nodes: ctx.nodes,
                nps: (ctx.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
                time,
                pv: pv.clone(),
            };
            on_info(&info);
            result.best_move = pv.first().copied();
            result.ponder = pv.get(1).copied();
            result.score = score;
            result.depth = depth;
            result.seldepth = depth;
            result.pv = pv;
            result.lines = vec![info];
            if matches!(score, Score::Mate(_)) {
                break;
            }
        }
        result.nodes = ctx.nodes;
        result.time = start.elapsed();
        result.nps = (ctx.nodes as f64 / result.time.as_secs_f64().max(1e-6)) as u64;
        result
    }
}
