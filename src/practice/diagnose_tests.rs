//! The relations read from answers that are wrong in known ways, on real tensors.

use super::*;
use candle_core::{D, Device, IndexOp};

fn t(seed: u64, shape: &[usize]) -> Tensor {
    crate::repro::Generator::new(seed).randn(shape).unwrap()
}

fn one(got: &Tensor, want: &Tensor, facts: &Facts) -> Option<String> {
    observation(&[(relations(got, want, facts).unwrap(), facts)])
}

#[test]
fn a_factor_is_named_after_the_size_it_is_the_root_of() {
    let want = t(1, &[2, 3, 5]);
    let facts = Facts { sizes: vec![("d_k", 5)], mask: None, pad: None };
    let said = one(&(&want * 5f64.sqrt()).unwrap(), &want, &facts).unwrap();
    assert!(said.contains("times √d_k") && said.contains("d_k = 5"), "{said}");
    let said = one(&(&want / 5f64.sqrt()).unwrap(), &want, &facts).unwrap();
    assert!(said.contains("times 1/√d_k"), "{said}");
    let said = one(&(&want * 2.0).unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("times 2 "), "{said}");
    let said = one(&want.neg().unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("-1 (the signs are flipped)"), "{said}");
    let said = one(&(&want * 3.7).unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("times 3.7000"), "{said}");
}

#[test]
fn the_same_name_across_cases_of_other_sizes() {
    let (a, b) = (t(2, &[3, 4]), t(3, &[2, 6]));
    let (fa, fb) = (Facts { sizes: vec![("d_k", 4)], mask: None, pad: None }, Facts { sizes: vec![("d_k", 6)], mask: None, pad: None });
    let ra = relations(&(&a * 2.0).unwrap(), &a, &fa).unwrap();
    let rb = relations(&(&b * 6f64.sqrt()).unwrap(), &b, &fb).unwrap();
    // 2 is √d_k for the first case: both are √d_k
    let said = observation(&[(ra, &fa), (rb, &fb)]).unwrap();
    assert!(said.contains("times √d_k on every case") && said.contains("d_k = 4; d_k = 6"), "{said}");
}

#[test]
fn swapped_dimensions_and_a_lost_unit_dimension() {
    let want = t(4, &[2, 3, 5]);
    let said = one(&want.transpose(1, 2).unwrap().contiguous().unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("the last two swapped") && said.contains(".permute([0, 2, 1])"), "{said}");
    let said = one(&want.permute((1, 0, 2)).unwrap().contiguous().unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("a transpose or permute"), "{said}");
    let said = one(&want.unsqueeze(0).unwrap(), &want, &Facts::default()).unwrap();
    assert!(said.contains("extra dimension of size 1"), "{said}");
    let said =
        one(&want.i(0).unwrap().unsqueeze(1).unwrap().contiguous().unwrap(), &want.i(0).unwrap().unsqueeze(0).unwrap(), &Facts::default());
    assert!(said.is_some_and(|s| s.contains("another order")));
}

#[test]
fn a_shift_by_one_step() {
    let want = t(5, &[2, 6, 3]);
    // yours at step t is the reference's at t - 1: the first step repeated
    let got = Tensor::cat(&[want.narrow(1, 0, 1).unwrap(), want.narrow(1, 0, 5).unwrap()], 1).unwrap();
    let said = one(&got, &want, &Facts::default()).unwrap();
    assert!(said.contains("one position later along dimension 1"), "{said}");
    let got = Tensor::cat(&[want.narrow(1, 1, 5).unwrap(), want.narrow(1, 5, 1).unwrap()], 1).unwrap();
    assert!(one(&got, &want, &Facts::default()).unwrap().contains("earlier along dimension 1"));
}

#[test]
fn differences_only_where_the_mask_hides_or_keeps() {
    let want = t(6, &[2, 4]);
    let mask = Tensor::new(&[[0f32, 0., 1., 1.], [0., 0., 0., 1.]], &Device::Cpu).unwrap();
    let noise = t(7, &[2, 4]);
    let facts = Facts { sizes: vec![], mask: Some(mask.clone()), pad: None };
    let inside = (&want + noise.mul(&mask).unwrap()).unwrap();
    assert!(one(&inside, &want, &facts).unwrap().contains("only where the mask hides"));
    let outside = (&want + noise.mul(&(1.0 - &mask).unwrap()).unwrap()).unwrap();
    assert!(one(&outside, &want, &facts).unwrap().contains("only where the mask keeps"));
}

#[test]
fn a_softmax_over_another_dimension() {
    let scores = t(8, &[2, 3, 4]);
    let want = candle_nn::ops::softmax(&scores, D::Minus1).unwrap();
    let got = candle_nn::ops::softmax(&scores, 1).unwrap();
    let said = one(&got, &want, &Facts::default()).unwrap();
    assert!(said.contains("sum to one over dimension 1; the reference's over dimension 2"), "{said}");
}

#[test]
fn nothing_is_said_of_an_answer_without_a_relation() {
    let want = t(9, &[3, 3]);
    assert_eq!(one(&t(10, &[3, 3]), &want, &Facts::default()), None);
    // a relation must hold on every case that differs
    let facts = Facts::default();
    let ra = relations(&(&want * 2.0).unwrap(), &want, &facts).unwrap();
    let rb = relations(&t(11, &[3, 3]), &want, &facts).unwrap();
    assert_eq!(observation(&[(ra, &facts), (rb, &facts)]), None);
}

#[test]
fn a_transpose_is_seen_through_dimensions_of_size_one_and_in_masks() {
    let want = Tensor::from_vec((0..6u8).collect::<Vec<_>>(), (1, 2, 3), &Device::Cpu).unwrap();
    let got = want.permute((0, 2, 1)).unwrap().contiguous().unwrap();
    let facts = Facts::default();
    let rs = relations(&got, &want, &facts).unwrap();
    assert!(rs.contains(&Relation::Permuted(vec![0, 2, 1])), "{rs:?}");
    // a second case whose batch of one makes several orders fit: the common one is named
    let want2 = Tensor::from_vec((0..6u8).collect::<Vec<_>>(), (2, 1, 3), &Device::Cpu).unwrap();
    let got2 = want2.permute((0, 2, 1)).unwrap().contiguous().unwrap();
    let rs2 = relations(&got2, &want2, &facts).unwrap();
    let seen = observation(&[(rs, &facts), (rs2, &facts)]).expect("an observation");
    assert!(seen.contains("another order"), "{seen}");
}
