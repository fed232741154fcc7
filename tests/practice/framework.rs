//! The machinery every exercise shares.

use attention_zoo::practice::seq2seq::*;
use attention_zoo::practice::solutions::seq2seq as s;
use attention_zoo::practice::{Verdict, all};
use attention_zoo::prelude::*;

#[test]
fn a_panic_or_an_error_is_the_students_and_the_check_goes_on() {
    let _serial = crate::common::serial();
    let o = q6.check(|_, _| panic!("my own bug"));
    assert_eq!(o.verdict, Verdict::Incorrect);
    assert!(o.detail.as_deref().is_some_and(|d| d.contains("Your code panicked: my own bug")), "{o}");
    let o = q6.check(|p, _| p.reshape(7));
    assert_eq!(o.verdict, Verdict::Incorrect);
    assert!(o.detail.as_deref().is_some_and(|d| d.starts_with("Your code returned an error:")), "{o}");
    assert!(o.case.as_deref().is_some_and(|c| c.starts_with("Case 1 of 2:")), "{o}");
    // after both, a check runs as before
    assert!(q6.check(s::mse_loss).is_correct());
}

#[test]
fn a_check_leaves_the_students_generator_where_it_was() {
    let _serial = crate::common::serial();
    manual_seed(5).unwrap();
    let a = rand_scalar();
    manual_seed(5).unwrap();
    assert!(q7.check(s::MyEncoder::new, s::MyEncoder::forward).is_correct());
    assert!(q7.check(|_, _| -> Result<s::MyEncoder> { panic!("oops") }, s::MyEncoder::forward).verdict == Verdict::Incorrect);
    // the encoder-decoder's references draw a teacher-forcing coin at every step
    assert!(q5.check(s::encoder_decoder_forward).is_correct());
    assert!(
        q5.check(|e, d, x, _, _, _| {
            d.init_hidden(&e.forward(x)?)?;
            crate_draws(x)
        })
        .verdict
            == Verdict::Incorrect
    );
    assert_eq!(rand_scalar(), a);
}

#[test]
fn every_exercise_has_hints_a_solution_and_a_unique_id() {
    let _serial = crate::common::serial();
    let all = all();
    let mut ids: Vec<&str> = all.iter().map(|i| i.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "ids are unique");
    for info in &all {
        assert!(info.hints.len() >= 2, "{}: graduated hints", info.id);
        let solution = info.solution();
        assert!(!solution.code.contains("excerpts.txt has no"), "{}: {}", info.id, solution.code);
        assert!(info.lecture.contains('#') || info.lecture == "ours", "{}: a lecture cell, or ours", info.id);
    }
    let hint = q1.hint_n(2);
    assert_eq!(hint.n, 2);
    assert!(hint.text().contains("q1.hint_n(3)"), "{}", hint.text());
    assert_eq!(q1.hint_n(99).n, 3, "past the last, the last");
    assert!(q1.solution().code.starts_with("pub fn split_sequence(full: &Tensor, input_len: usize)"));
}

#[test]
fn outcomes_render_as_text_and_html() {
    let _serial = crate::common::serial();
    let wrong = q6.check(|p, t| (p - t)?.sqr()?.sum_all());
    let text = wrong.text();
    assert!(text.starts_with("01.q6 the mean squared error: Incorrect\nCase 1 of 2:"), "{text}");
    assert!(text.contains("The first difference: at [] yours is"), "{text}");
    assert!(text.contains("Hint: That is the sum of the squares"), "{text}");
    let html = wrong.html();
    assert!(html.contains("data-verdict=\"Incorrect\"") && html.contains("#cf222e"), "{html}");
    let todo = q6.check(|_, _| todo!()).text();
    assert!(todo.contains("Not attempted") && todo.contains("todo!()"), "{todo}");
    let right = q6.check(s::mse_loss).text();
    assert!(right.contains("Correct\nAll 2 cases agree with the reference"), "{right}");
}

#[test]
fn progress_is_kept_in_a_file_that_is_never_lost() {
    use attention_zoo::practice::progress::{Progress, load, record_in};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("practice-progress");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(".zoo-progress.json");
    let _serial = crate::common::serial();
    record_in(&file, &q1.check(|_, _| todo!()));
    record_in(&file, &q1.check(s::split_sequence));
    record_in(&file, &q3.check(|h| h.narrow(1, 0, 1)?.permute((1, 0, 2))));
    let records = load(&file).unwrap();
    assert_eq!(records["01.q1"].verdict, Verdict::Correct);
    assert_eq!(records["01.q1"].checks, 2);
    assert_eq!(records["01.q3"].verdict, Verdict::Incorrect);
    // what a restarted kernel reads: the file, not memory
    let table = Progress::read(&file, "01");
    assert_eq!(table.rows.len(), 7);
    assert_eq!(table.correct(), 1);
    let text = table.text();
    assert!(text.starts_with("Part 01: 1 of 7 correct"), "{text}");
    assert!(text.contains("01.q2") && text.contains("not checked yet"), "{text}");
    assert!(table.html().contains("<table class=\"zoo-progress\""));
    // a file that is not a progress file is moved aside, never written over
    std::fs::write(&file, "{ not json").unwrap();
    assert!(load(&file).is_err());
    record_in(&file, &q1.check(s::split_sequence));
    assert_eq!(std::fs::read_to_string(dir.join(".zoo-progress.json.unreadable")).unwrap(), "{ not json");
    assert_eq!(load(&file).unwrap()["01.q1"].checks, 1);
}

/// A student's code that draws from the default generator too.
fn crate_draws(x: &Tensor) -> Result<Tensor> {
    let _ = rand_scalar();
    Ok(x.clone())
}

#[test]
fn a_todo_left_in_one_branch_is_not_finished_naming_the_cases_that_reach_it() {
    let _serial = crate::common::serial();
    // 01.q1's cases cut at 2, 3 and 1: the branch for a cut of 1 is left to do
    let o = q1.check(|x, n| if n == 1 { todo!() } else { s::split_sequence(x, n) });
    assert_eq!(o.verdict, Verdict::NotFinished, "{o}");
    let detail = o.detail.as_deref().unwrap_or_default();
    assert!(detail.contains("in 1 of 3 cases: case 3 ("), "{o}");
    assert!(o.text().starts_with("01.q1 split a sequence into source and target: Not finished"), "{o}");
}

#[test]
fn a_float64_answer_is_named_where_the_lecture_has_float32() {
    let _serial = crate::common::serial();
    let o = q1.check(|x, n| {
        let (a, b) = s::split_sequence(x, n)?;
        Ok((a.to_dtype(DType::F64)?, b))
    });
    assert_eq!(o.verdict, Verdict::Incorrect, "{o}");
    assert!(o.detail.as_deref().is_some_and(|d| d.contains("dtype is F64; the reference's is F32")), "{o}");
}

#[test]
fn a_sentence_needs_the_mistake_on_every_case_and_an_observation_is_what_was_seen() {
    let _serial = crate::common::serial();
    // the source and target swapped, but only on the first case: not that mistake, so no sentence;
    // cases 2 and 3 agree, and the observation says only case 1 differs
    let o = q1.check(|x, n| {
        let (a, b) = s::split_sequence(x, n)?;
        if x.dim(0)? == 3 { Ok((b.clone(), a.clone())) } else { Ok((a, b)) }
    });
    assert_eq!(o.verdict, Verdict::Incorrect, "{o}");
    assert!(o.advice.is_none(), "{o}");
    assert!(o.observed.as_deref().is_some_and(|s| s.contains("Cases 2, 3 agree with the reference; only case 1 (")), "{o}");
    // a source scaled by 2 on every case: what was seen, not a guess
    let o = q1.check(|x, n| {
        let (a, b) = s::split_sequence(x, n)?;
        Ok(((a * 2.0)?, b))
    });
    assert!(o.observed.as_deref().is_some_and(|s| s.contains("times 2 on every case")), "{o}");
}

/// The loops are probed: an answer that changes when only the target changes, where it must not
/// read it, is told so, whatever its numbers.
#[test]
fn a_loop_that_reads_the_target_at_prediction_is_told_so() {
    use super::mistake;
    use attention_zoo::practice::self_attention as sa;
    let _serial = crate::common::serial();
    // the teacher-forcing flag read upside down: forcing at prediction, none in training
    let o = q5.check(|encoder, decoder, x, input_len, target_len, teacher_forcing| {
        let source_seq = x.i((.., ..input_len))?;
        let target_seq = x.i((.., input_len..))?;
        decoder.init_hidden(&encoder.forward(&source_seq)?)?;
        let mut dec_inputs = source_seq.i((.., input_len - 1..))?;
        let mut outputs = vec![];
        for i in 0..target_len {
            let out = decoder.forward(&dec_inputs)?;
            outputs.push(out.clone());
            dec_inputs = if !teacher_forcing { target_seq.i((.., i..i + 1))? } else { out };
        }
        Tensor::cat(&outputs, 1)
    });
    mistake(o, "only the target's points change");
    // the encoder run over the whole sequence, source and target
    let o = sa::q8.check(|model, x, source_mask| {
        model.encode(x, source_mask)?;
        let mut inputs = x.i((.., model.input_len - 1..model.input_len))?;
        for i in 0..model.target_len {
            let trg_masks = model.trg_masks.i((.., ..i + 1, ..i + 1))?;
            let out = model.decode(&inputs, source_mask, Some(&trg_masks))?;
            inputs = Tensor::cat(&[inputs, out.i((.., i..i + 1))?], 1)?;
        }
        inputs.i((.., 1..))
    });
    mistake(o, "never the target");
}

/// The grading form: the points for Correct, an error for anything else, whose text is the box's
/// (the exercise, the verdict, the case and the mistake), so that a grader scoring a cell by
/// whether it fails scores it by the verdict.
#[test]
fn grade_fails_the_cell_unless_correct() {
    let _serial = crate::common::serial();
    let graded = q6.check(s::mse_loss).grade(2.0).unwrap();
    assert_eq!((graded.points, graded.outcome.is_correct()), (2.0, true));
    let e = q6.check(|_, _| todo!()).grade(2.0).unwrap_err().to_string();
    assert!(e.starts_with("01.q6 ") && e.contains(": Not attempted: graded 0"), "{e}");
    let wrong = q6.check(|p, y| (p - y)?.abs()?.mean_all());
    let case = wrong.case.clone().unwrap_or_default();
    let e = wrong.grade(2.0).unwrap_err().to_string();
    assert!(e.contains(": Incorrect: graded 0") && e.contains(&case), "the verdict and the case: {e}");
    // a panic hook of the student's does not turn a failure into a pass: the failure is a value
    std::panic::set_hook(Box::new(|_| {}));
    let after_hook = q6.check(|_, _| panic!("silenced")).grade(2.0);
    let _ = std::panic::take_hook();
    assert!(after_hook.is_err());
}
