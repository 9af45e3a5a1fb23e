use super::*;

fn params(eps: f64, w_n: f64, b: u64) -> ReleaseParams {
    ReleaseParams::new(eps, w_n, b).unwrap()
}

#[test]
fn the_paper_shift_and_its_mirror() {
    // b = 2/0.3, E[Y] = 10, w_n = 5000 (the paper's defaults): μ = b·ln(501) ≈ 41.4
    let b = 2.0 / 0.3;
    let mu = continuous_shift(b, 10.0, 5000.0);
    assert!((mu - b * (5010.0f64 / 20.0).ln()).abs() < 1e-9, "{mu}");
    // w_n = E[Y]: no shift; w_n < E[Y]: a negative shift, the mirror formula
    assert!(continuous_shift(b, 10.0, 10.0).abs() < 1e-12);
    let neg = continuous_shift(b, 10.0, 2.0);
    assert!(neg < 0.0 && (neg - b * (4.0f64 / 12.0).ln()).abs() < 1e-9);
    // the mirror is the minimum of the continuous cost: check against a grid
    let cost = |m: f64, w: f64, e: f64| {
        let (mut c, n) = (0.0, 200_000);
        for i in 0..n {
            let x = -400.0 + 800.0 * (i as f64 + 0.5) / n as f64;
            let dens = (-(x - m).abs() / b).exp() / (2.0 * b) * 800.0 / n as f64;
            c += dens * if x < 0.0 { -w * x } else { e * x };
        }
        c
    };
    for m in [neg - 1.0, neg + 1.0] {
        assert!(cost(neg, 2.0, 10.0) < cost(m, 2.0, 10.0));
    }
}

#[test]
fn the_integer_shift_is_near_the_continuous_one() {
    let p = params(0.3, 5000.0, 5000);
    let (m, mu) = shift(&p, 500).unwrap();
    assert!((m as f64 - mu).abs() <= 2.0, "{m} vs {mu}");
}

#[test]
fn fakes_and_suppressions_follow_the_noise_and_are_counted() {
    let block_of: Vec<usize> = (0..1000).map(|i| i % 10).collect();
    let mut ledger = BudgetLedger::new(Epsilon::ONE);
    // a small w_n makes the shift negative: both fakes and suppressions happen
    let r = release(&block_of, 10, &params(0.5, 1.0, 1000), &mut ledger, &mut Randomness::seeded(4)).unwrap();
    let reals: usize = r.blocks.iter().flatten().filter(|s| matches!(s, Slot::Real(_))).count();
    let fakes: usize = r.blocks.iter().flatten().filter(|s| matches!(s, Slot::Fake)).count();
    assert_eq!(fakes, r.report.fakes);
    assert_eq!(reals + r.report.suppressed.len(), 1000);
    assert!(!r.report.suppressed.is_empty());
    assert!(!r.report.private);
    // every real slot is in its own block, at most once
    let mut seen = std::collections::HashSet::new();
    for (b, slots) in r.blocks.iter().enumerate() {
        for s in slots {
            if let Slot::Real(i) = s {
                assert_eq!(block_of[*i], b);
                assert!(seen.insert(*i));
            }
        }
    }
    assert!(r.report.suppressed.iter().all(|i| !seen.contains(i)));
    assert_eq!(ledger.spent(), Epsilon::new(0.5).unwrap());
    // the paper's defaults: a large w_n gives (almost surely) no suppression
    let r = release(&block_of, 10, &params(0.3, 5000.0, 1000), &mut ledger, &mut Randomness::seeded(5)).unwrap();
    assert!(r.report.suppressed.is_empty() && r.report.fakes > 0);
    // the budget is enforced
    assert!(release(&block_of, 10, &params(0.3, 5000.0, 1000), &mut ledger, &mut Randomness::seeded(6)).is_err());
}

#[test]
fn bad_parameters_are_refused() {
    assert!(ReleaseParams::new(0.0, 10.0, 10).is_err());
    assert!(ReleaseParams::new(0.3, f64::NAN, 10).is_err());
    assert!(ReleaseParams::new(0.3, -1.0, 10).is_err());
    assert!(ReleaseParams::new(0.3, 10.0, 0).is_err());
    let mut ledger = BudgetLedger::new(Epsilon::ONE);
    let e = release(&[0, 5], 3, &params(0.3, 10.0, 10), &mut ledger, &mut Randomness::seeded(1)).unwrap_err();
    assert_eq!(e.code(), "INVALID_PARAMETER");
}
