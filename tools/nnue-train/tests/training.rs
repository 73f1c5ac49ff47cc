//! The trainer against its definition: analytic gradients against finite differences, the
//! float network against the engine's quantised evaluation of its export, and training
//! against a learnable synthetic target; plus the command's files and `--resume`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use nnue_train::data::Dataset;
use nnue_train::net::{FloatNet, Scratch};
use nnue_train::train::{Adam, Trainer};
use nnue_train::{Options, quantisation_error};
use variant_engine::{
    NetInputs, Network, PackedPosition, Position, QA, QB, Registry, Variant, data_header,
    decode_piece, random_playout, write_game,
};

fn variant(name: &str) -> Arc<Variant> {
    Registry::builtin().get(name).unwrap()
}

/// White's material minus Black's (pockets included), from the variant's piece values.
fn material(variant: &Variant, p: &PackedPosition) -> i32 {
    let value = |code: u8| {
        let (c, k) = decode_piece(code);
        let v = variant.pieces()[k].value;
        if c == variant_engine::Color::White {
            v
        } else {
            -v
        }
    };
    p.pieces.iter().map(|&(_, code)| value(code)).sum::<i32>()
        + p.pocket
            .iter()
            .map(|&(code, n)| value(code) * i32::from(n))
            .sum::<i32>()
}

/// `n` positions from random games of `variant`, labelled with the material count (times
/// `scale`) and a result that agrees with its sign.
fn positions(variant: &Arc<Variant>, n: usize, seed: u64, scale: i32) -> Vec<PackedPosition> {
    (0..n as u64)
        .map(|i| {
            let plies = (i * 7 + seed) % 140;
            let pos = random_playout(Position::new(variant.clone()), plies as usize, seed + i);
            let mut p = PackedPosition::from_position(&pos, 0, 1);
            let m = material(variant, &p) * scale;
            p.score = m.clamp(-32000, 32000) as i16;
            p.result = match m {
                m if m > 150 => 2,
                m if m < -150 => 0,
                _ => 1,
            };
            p
        })
        .collect()
}

/// The plain inputs of `v`, or those with king windows.
fn net_inputs(v: &Variant, window: bool) -> NetInputs {
    if window {
        NetInputs::king_window(v).unwrap()
    } else {
        NetInputs::plain(v)
    }
}

fn dataset(variant: &Arc<Variant>, ni: NetInputs, records: &[PackedPosition]) -> Dataset {
    let mut data = Dataset::new(variant, ni).unwrap();
    for p in records {
        data.push(p).unwrap();
    }
    data
}

#[test]
fn analytic_gradient_matches_finite_differences() {
    for (name, window) in [("opulent", false), ("orphic", false), ("opulent", true)] {
        let v = variant(name);
        let ni = net_inputs(&v, window);
        let inputs = ni.count();
        let mut records = positions(&v, 6, 11, 3);
        // Scores and results that disagree with the network's initial guess on both sides.
        for (i, p) in records.iter_mut().enumerate() {
            p.score = [-900, 300, 1200, -150, 40, 700][i];
            p.result = [0, 2, 1, 2, 0, 1][i];
        }
        let data = dataset(&v, ni, &records);
        let indices: Vec<u32> = (0..data.len() as u32).collect();
        let lambda = 0.6;
        let net = FloatNet::new(inputs, 4, 5, data.mean_active());
        // Two threads, so the reduction of per-thread gradients is part of what is checked.
        let mut trainer = Trainer::new(net, Adam::new(0), 2);
        let (_, analytic) = trainer.loss_and_gradient(&data, lambda, &indices);
        let n = indices.len() as f64;

        // Coordinates: every b1, w2 and b2, and W1 at every active input of the first
        // positions plus a few inputs no position uses (whose gradient must be 0).
        let h = trainer.net.hidden();
        let mut coords: Vec<usize> = (trainer.net.b1_offset()..=trainer.net.b2_offset()).collect();
        let mut used = vec![false; inputs];
        for i in 0..data.len() {
            let (a, b) = data.features(i);
            for &f in a.iter().chain(b) {
                used[usize::from(f)] = true;
            }
        }
        let (stm, other) = data.features(0);
        for &f in stm.iter().take(6).chain(other.iter().take(6)) {
            coords.extend((0..h).map(|j| usize::from(f) * h + j));
        }
        let unused: Vec<usize> = (0..inputs).filter(|&f| !used[f]).take(3).collect();
        assert!(!unused.is_empty());
        for &f in &unused {
            coords.extend((0..h).map(|j| f * h + j));
        }

        let eps = 1e-3f32;
        let (mut checked, mut kinks, mut nonzero) = (0, 0, 0);
        for &c in &coords {
            let base = trainer.net.params()[c];
            let mut loss_at = |x: f32| {
                trainer.net.params_mut()[c] = x;
                trainer.loss(&data, lambda, &indices) * n
            };
            let (lo, mid, hi) = (loss_at(base - eps), loss_at(base), loss_at(base + eps));
            trainer.net.params_mut()[c] = base;
            let (left, right) = ((mid - lo) / f64::from(eps), (hi - mid) / f64::from(eps));
            let central = (hi - lo) / (2.0 * f64::from(eps));
            // A hidden value crossing the activation's kink at 1 makes the two one-sided
            // slopes differ: the derivative is not defined there, so skip the coordinate.
            if (left - right).abs() > 0.05 * central.abs() + 1e-3 {
                kinks += 1;
                continue;
            }
            let a = f64::from(analytic[c]);
            assert!(
                (a - central).abs() <= 2e-4 + 0.02 * central.abs(),
                "{name}: parameter {c}: analytic {a}, finite difference {central}"
            );
            checked += 1;
            if a.abs() > 1e-4 {
                nonzero += 1;
            }
        }
        for &f in &unused {
            assert!(analytic[f * h..(f + 1) * h].iter().all(|&g| g == 0.0));
        }
        assert!(kinks * 10 <= coords.len(), "{name}: {kinks} kinks");
        assert!(
            nonzero * 2 >= checked - unused.len() * h,
            "{name}: most gradients vanish ({nonzero} of {checked})"
        );
    }
}

/// The largest error in centipawns between the float network and the engine's evaluation
/// of its export, asserting at each position that it is within `bound(its inputs)`.
fn check_against_engine(
    v: &Arc<Variant>,
    ni: NetInputs,
    net: &FloatNet,
    records: &[PackedPosition],
    bound: &dyn Fn(&[u16], &[u16]) -> f64,
) -> f64 {
    let engine = Network::from_bytes(&net.export(v, ni, false).unwrap().to_bytes(), v).unwrap();
    assert_eq!(engine.inputs(), ni);
    let data = dataset(v, ni, records);
    let mut s = Scratch::new(net.hidden());
    let mut worst = 0.0f64;
    for (i, p) in records.iter().enumerate() {
        let (stm, other) = data.features(i);
        let float = f64::from(net.evaluate(stm, other, &mut s));
        let quantised = f64::from(engine.evaluate_position(&p.to_position(v)));
        let err = (quantised - float).abs();
        let limit = bound(stm, other);
        assert!(
            err <= limit,
            "{}: position {i}: engine {quantised}, float {float:.2}, bound {limit:.2}",
            v.name()
        );
        worst = worst.max(err);
    }
    worst
}

#[test]
fn float_forward_matches_the_engine_after_export() {
    // With king windows the engine adds a second input for a piece near a king, and must
    // agree with the float network that does.
    for (name, hidden, window) in [
        ("orphic", 16, false),
        ("opulent", 32, false),
        ("opulent", 16, true),
        ("orphic", 16, true),
    ] {
        let v = variant(name);
        let ni = net_inputs(&v, window);
        let inputs = ni.count();
        let records = positions(&v, 300, 3, 1);
        if v.has_drops() {
            let with_pockets = records.iter().filter(|p| !p.pocket.is_empty()).count();
            assert!(with_pockets > 30, "{with_pockets}");
        }
        let data = dataset(&v, ni, &records);
        // A briefly trained network, so that weights are not only the initial ones.
        let net = FloatNet::new(inputs, hidden, 9, data.mean_active());
        let mut trainer = Trainer::new(net, Adam::new(FloatNet::param_count(inputs, hidden)), 1);
        let order: Vec<u32> = (0..data.len() as u32).collect();
        for _ in 0..2 {
            trainer.epoch(&data, 0.7, &order, 32, 0.01);
        }

        // 1. Weights on the quantisation grids: the export is exact, so the engine and the
        // float network compute the same function except for the engine's two truncating
        // divisions, `Σ c² w / QA` (under one unit of 1/(QA·QB), 400/16320 = 0.025 cp) and
        // the final `· 400 / (QA·QB)` (under 1 cp), plus f32 rounding (far below 0.01 cp
        // for outputs of a few units). Hence 1.05 cp, whatever the weights: a wrong
        // perspective, activation, pocket input or scale is off by far more.
        let exact = trainer.net.quantised();
        assert_ne!(exact, trainer.net, "training left every weight on its grid");
        let worst = check_against_engine(&v, ni, &exact, &records, &|_, _| 1.05);
        assert!(worst > 0.0 || records.is_empty());

        // 2. The network as trained. Rounding each weight to its grid adds independent
        // errors, uniform within half a step (variance step²/12): per hidden value
        // Δh over the n+1 first-layer terms, Var = (n+1)/(12 QA²), turned into Δa ≈ 2h·Δh
        // and weighted by w2; and per output weight Δw2 with Var = 1/(12 QB²), weighted by
        // the activation a. The engine's error in out is about normal with
        // σ² = Σ_j w2_j² (2h_j)² (n+1)/(12 QA²) + Σ_j a_j² / (12 QB²); 6σ (times 400 cp)
        // plus the 1.05 cp of the exact case bounds every position.
        let net = &trainer.net;
        let (w2_all, b1_all) = (
            &net.params()[net.w2_offset()..net.b2_offset()],
            &net.params()[net.b1_offset()..net.w2_offset()],
        );
        let w1 = &net.params()[..net.b1_offset()];
        let bound = |stm: &[u16], other: &[u16]| {
            let mut var = 0.0f64;
            for (half, features) in [stm, other].into_iter().enumerate() {
                for j in 0..hidden {
                    let mut x = f64::from(b1_all[j]);
                    for &f in features {
                        x += f64::from(w1[usize::from(f) * hidden + j]);
                    }
                    let c = x.clamp(0.0, 1.0);
                    let w = f64::from(w2_all[half * hidden + j]);
                    let slope = if x > 0.0 && x < 1.0 { 2.0 * c } else { 0.0 };
                    let n = features.len() as f64 + 1.0;
                    var += w * w * slope * slope * n / (12.0 * f64::from(QA * QA));
                    var += c.powi(4) / (12.0 * f64::from(QB * QB));
                }
            }
            400.0 * 6.0 * var.sqrt() + 1.05
        };
        let worst = check_against_engine(&v, ni, net, &records, &bound);
        let (max, mean) = quantisation_error(net, &v, ni, &records).unwrap();
        assert!((max - worst).abs() < 1e-9 && mean <= max);
        // The typical error: well under 10 cp at these sizes.
        assert!(mean < 10.0, "{name}: mean quantisation error {mean:.2} cp");
    }
}

#[test]
fn training_lowers_the_validation_loss() {
    let v = variant("opulent");
    let ni = NetInputs::plain(&v);
    let inputs = ni.count();
    // Material, doubled so that targets spread well away from ½.
    let records = positions(&v, 6000, 21, 1);
    let data = dataset(&v, ni, &records);
    let train: Vec<u32> = (0..5000).collect();
    let valid: Vec<u32> = (5000..6000).collect();
    let net = FloatNet::new(inputs, 16, 1, data.mean_active());
    let mut trainer = Trainer::new(net, Adam::new(FloatNet::param_count(inputs, 16)), 2);
    let lambda = 1.0;
    let initial = trainer.loss(&data, lambda, &valid);
    eprintln!("initial validation loss {initial:.5}");
    let mut last = initial;
    for epoch in 0..6 {
        let order = nnue_train::shuffled(&train, 1, epoch);
        trainer.epoch(&data, lambda, &order, 64, 0.01);
        last = trainer.loss(&data, lambda, &valid);
        eprintln!("epoch {epoch}: validation loss {last:.5}");
    }
    assert!(
        last < 0.5 * initial,
        "validation loss {initial:.5} -> {last:.5}"
    );

    // Quantisation-aware epochs hold the output weights on the export's grid and lower the
    // loss of the network as exported (the deterministic seeds make this a fixed check).
    let before = trainer.quantised_loss(&data, lambda, &valid);
    let w2 = |net: &FloatNet| net.params()[net.w2_offset()..net.b2_offset()].to_vec();
    let first_layer = trainer.net.params()[..trainer.net.w2_offset()].to_vec();
    trainer.hold_output_weights();
    let snapped = w2(&trainer.net);
    assert_eq!(snapped, w2(&trainer.net.quantised()));
    for epoch in 6..8 {
        let order = nnue_train::shuffled(&train, 1, epoch);
        trainer.epoch(&data, lambda, &order, 64, 0.002);
    }
    assert_eq!(w2(&trainer.net), snapped, "the output weights moved");
    assert_ne!(
        trainer.net.params()[..trainer.net.w2_offset()],
        first_layer[..]
    );
    let after = trainer.quantised_loss(&data, lambda, &valid);
    eprintln!("exported network's validation loss {before:.6} -> {after:.6}");
    assert!(after < before, "{before:.6} -> {after:.6}");
}

#[test]
fn the_command_writes_its_files_and_resumes() {
    let v = variant("orphic");
    let dir = std::env::temp_dir().join(format!("nnue-train-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data_path = dir.join("orphic.bin");
    let mut bytes = data_header(v.name());
    let records = positions(&v, 400, 5, 1);
    for (game, chunk) in records.chunks(40).enumerate() {
        write_game(&mut bytes, game as u32, chunk).unwrap();
    }
    // A record cut short at the end, as in a file still being written.
    bytes.extend_from_slice(&[1, 0, 1, 0]);
    std::fs::write(&data_path, &bytes).unwrap();
    let out = dir.join("net.nnue");
    let csv = dir.join("loss.csv");
    let opts = |epochs: usize, resume: bool| Options {
        variant: "orphic".into(),
        data: vec![data_path.clone()],
        out: out.clone(),
        hidden: 8,
        epochs,
        batch: 64,
        lr: 0.005,
        lambda: 0.7,
        validation: 0.1,
        threads: 2,
        seed: 3,
        checkpoint: None,
        resume,
        loss_csv: Some(csv.clone()),
        max_positions: None,
        residual: false,
        king_window: false,
        qat_epochs: 0,
        init: None,
    };
    nnue_train::run(&opts(2, false)).unwrap();
    assert!(
        !Network::from_bytes(&std::fs::read(&out).unwrap(), &v)
            .unwrap()
            .residual()
    );
    let first = std::fs::read(&out).unwrap();
    nnue_train::run(&opts(3, true)).unwrap();
    let second = std::fs::read(&out).unwrap();
    assert_ne!(first, second, "the resumed epoch changed the network");
    let net = Network::from_bytes(&second, &v).unwrap();
    assert_eq!(net.hidden(), 8);
    let lines: Vec<String> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].starts_with("epoch,lr,"));
    assert!(lines[3].starts_with("3,"));

    // A quantisation-aware epoch resumed after the three changes the network and is logged
    // as the fourth epoch (the training test checks what it holds and what it lowers).
    nnue_train::run(&Options {
        qat_epochs: 1,
        ..opts(3, true)
    })
    .unwrap();
    let third = std::fs::read(&out).unwrap();
    assert_ne!(
        second, third,
        "the quantisation-aware epoch changed the network"
    );
    let lines = std::fs::read_to_string(&csv).unwrap();
    assert!(
        lines.lines().nth(4).is_some_and(|l| l.starts_with("4,")),
        "{lines}"
    );

    // Started from the network just written (`--init`) at a learning rate too small to move
    // any weight by a grid step: the file comes back unchanged, so the run began from it (a
    // random start would not). Its float image exports to the same bytes.
    let tuned = dir.join("tuned.nnue");
    nnue_train::run(&Options {
        out: tuned.clone(),
        init: Some(out.clone()),
        lr: 1e-12,
        loss_csv: None,
        ..opts(1, false)
    })
    .unwrap();
    assert_eq!(std::fs::read(&tuned).unwrap(), third);
    let image = FloatNet::from_network(&Network::from_bytes(&third, &v).unwrap());
    assert_eq!(
        image
            .export(&v, NetInputs::plain(&v), false)
            .unwrap()
            .to_bytes(),
        third
    );

    // Started from it with twice the neurons, at the same negligible learning rate: the
    // new neurons' output weights are 0, so the wider network evaluates every position as
    // the narrow one does (the same engine arithmetic: zero output weights add nothing),
    // while its new first-layer weights are not all 0.
    let wide = dir.join("wide.nnue");
    nnue_train::run(&Options {
        out: wide.clone(),
        init: Some(out.clone()),
        hidden: 16,
        lr: 1e-12,
        loss_csv: None,
        ..opts(1, false)
    })
    .unwrap();
    let narrow = Network::from_bytes(&third, &v).unwrap();
    let wide = Network::from_bytes(&std::fs::read(&wide).unwrap(), &v).unwrap();
    assert_eq!((narrow.hidden(), wide.hidden()), (8, 16));
    let mut nonzero = 0;
    for p in &records {
        let position = p.to_position(&v);
        let (a, b) = (
            narrow.evaluate_position(&position),
            wide.evaluate_position(&position),
        );
        assert_eq!(a, b, "{}", position.fen());
        nonzero += usize::from(a != 0);
    }
    assert!(nonzero > records.len() / 2, "{nonzero} nonzero evaluations");
    let image = FloatNet::from_network(&wide);
    let new_weights = (0..image.inputs())
        .flat_map(|f| &image.params()[f * 16 + 8..f * 16 + 16])
        .filter(|&&w| w != 0.0)
        .count();
    assert!(
        new_weights > 0,
        "the new neurons have no first-layer weights"
    );

    // One epoch of a variation of the first run into its own file, read back.
    let one_epoch = |file: &str, residual: bool, king_window: bool| {
        let out = dir.join(file);
        nnue_train::run(&Options {
            out: out.clone(),
            residual,
            king_window,
            loss_csv: None,
            ..opts(1, false)
        })
        .unwrap();
        Network::from_bytes(&std::fs::read(&out).unwrap(), &v).unwrap()
    };
    // A residual run fits the correction to the hand-written evaluation and says so in the
    // file.
    let residual = one_epoch("residual.nnue", true, false);
    assert!(residual.residual() && !residual.inputs().windowed());

    // King windows: a windowed file.
    let windowed = one_epoch("window.nnue", false, true);
    assert!(windowed.inputs().windowed() && !windowed.residual());

    // Refused: a windowed resume of the plain run (another input count), windows for a
    // variant without a royal king, another variant's data, a resume with another shape.
    let refusals = [
        (
            Options {
                king_window: true,
                ..opts(4, true)
            },
            "inputs",
        ),
        (
            Options {
                variant: "decima".into(),
                king_window: true,
                ..opts(1, false)
            },
            "no royal king",
        ),
        (
            Options {
                variant: "opulent".into(),
                ..opts(1, false)
            },
            "not opulent",
        ),
        (
            Options {
                hidden: 16,
                ..opts(4, true)
            },
            "hidden",
        ),
        // `--init` with a network wider than the run, of another kind, or a file that is
        // not a network.
        (
            Options {
                hidden: 4,
                init: Some(out.clone()),
                ..opts(1, false)
            },
            "8 hidden neurons",
        ),
        (
            Options {
                residual: true,
                init: Some(out.clone()),
                ..opts(1, false)
            },
            "residual false",
        ),
        (
            Options {
                init: Some(data_path.clone()),
                ..opts(1, false)
            },
            "--init",
        ),
    ];
    for (options, why) in refusals {
        let err = nnue_train::run(&options).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The validation split holds out whole blocks of consecutive positions (a game's positions are
/// written together and nearly alike), about the asked share of them, and is deterministic.
#[test]
fn the_split_holds_out_whole_blocks_of_consecutive_positions() {
    use nnue_train::data::{SPLIT_BLOCK, Split};
    let split = Split {
        seed: 7,
        fraction: 0.1,
    };
    let blocks = 2000;
    let mut held = 0;
    for b in 0..blocks {
        let first = split.is_validation(b * SPLIT_BLOCK);
        for i in b * SPLIT_BLOCK..(b + 1) * SPLIT_BLOCK {
            assert_eq!(
                split.is_validation(i),
                first,
                "position {i} split from its block"
            );
        }
        held += usize::from(first);
    }
    let share = held as f64 / blocks as f64;
    assert!((0.07..0.13).contains(&share), "held-out share {share}");
    let other = Split {
        seed: 8,
        fraction: 0.1,
    };
    assert!(
        (0..blocks)
            .any(|b| split.is_validation(b * SPLIT_BLOCK) != other.is_validation(b * SPLIT_BLOCK)),
        "the seed changes the split"
    );
}
