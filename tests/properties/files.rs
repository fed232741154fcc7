//! Corrupted files: a PyTorch `.pt` state dict and a Transformer's training checkpoint, with
//! random bytes flipped or cut off. Loading returns an error and changes nothing, or loads
//! what was saved: never a panic, never a silently different model.

use super::config;
use crate::common;

use attention_zoo::nn::read_pytorch;
use attention_zoo::prelude::*;
use proptest::prelude::*;
use std::path::PathBuf;

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("properties");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Every parameter's values, in order.
fn values<M: Walk>(model: &M) -> Vec<Vec<f32>> {
    model.parameters().iter().map(|p| p.tensor().flatten_all().and_then(|t| t.to_vec1()).expect("values")).collect()
}

/// Bytes to change (where, and a mask never zero) and, when the flag says so, where to cut.
pub(super) type Corruption = (Vec<(prop::sample::Index, u8)>, prop::sample::Index, bool);

pub(super) fn corruption() -> impl Strategy<Value = Corruption> {
    (prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4), any::<prop::sample::Index>(), any::<bool>())
}

/// `good` with the bytes at the corruption's places changed and, when it says so, cut short.
pub(super) fn corrupt(good: &[u8], (flips, cut, truncate): &Corruption) -> Vec<u8> {
    let mut bytes = good.to_vec();
    for (at, x) in flips {
        let i = at.index(bytes.len());
        bytes[i] ^= x | 1;
    }
    if *truncate {
        bytes.truncate(cut.index(bytes.len()));
    }
    bytes
}

/// PyTorch's `Encoder(2, 2)` state dict in float64 (tests/fixtures/pt), and what it loads to.
fn pt_file() -> &'static (Vec<u8>, Vec<Vec<f32>>) {
    static GOOD: std::sync::OnceLock<(Vec<u8>, Vec<Vec<f32>>)> = std::sync::OnceLock::new();
    GOOD.get_or_init(|| {
        let path = format!("{}/tests/fixtures/pt/encoder_f64.pt", env!("CARGO_MANIFEST_DIR"));
        let enc = Encoder::new(2, 2).expect("encoder");
        enc.load_pytorch(&path).expect("the fixture loads");
        (std::fs::read(&path).expect("readable"), values(&enc))
    })
}

/// A one-layer Transformer's trainer over six pairs.
fn transformer_trainer() -> StepByStep<Transformer, CrossEntropyLoss, Adam, BucketIterator> {
    manual_seed(5).expect("seeded");
    let cfg = TransformerConfig { d_model: 4, n_heads: 2, d_ff: 4, n_layers: 1, dropout: 0.0, max_len: 8, ..TransformerConfig::new(9, 9) };
    let model = Transformer::from_config(&cfg).expect("model");
    let pairs: Vec<EncodedPair> = (0..6u32).map(|i| (vec![4 + i % 5, 5], vec![SOS_ID, 4 + (i + 1) % 5, EOS_ID])).collect();
    let train = BucketIterator::new(pairs, 3, Some(8), 1).expect("batches");
    let mut sbs = translation_trainer(model, 1e-2, train, None).expect("trainer");
    sbs.threads = 1;
    sbs.progress_every = 0;
    sbs
}

/// The trainer's checkpoint after one epoch, and the parameters it holds.
fn transformer_checkpoint() -> &'static (Vec<u8>, Vec<Vec<f32>>) {
    static SAVED: std::sync::OnceLock<(Vec<u8>, Vec<Vec<f32>>)> = std::sync::OnceLock::new();
    SAVED.get_or_init(|| {
        let path = scratch().join("transformer_good.safetensors");
        let mut sbs = transformer_trainer();
        sbs.train(1).expect("one epoch");
        sbs.save_checkpoint(&path).expect("saved");
        (std::fs::read(&path).expect("readable"), values(&sbs.model))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn corrupt_pt_files_never_panic_and_load_nothing_else(damage in corruption()) {
        let _serial = common::serial();
        let (good, loaded) = pt_file();
        let path = scratch().join("corrupt.pt");
        std::fs::write(&path, corrupt(good, &damage)).expect("written");
        manual_seed(9).expect("seeded");
        let enc = Encoder::new(2, 2).expect("encoder");
        let before = values(&enc);
        let _ = read_pytorch(&path);
        match enc.load_pytorch(&path) {
            Ok(()) => prop_assert_eq!(&values(&enc), loaded, "a corrupted file loaded other values"),
            Err(_) => prop_assert_eq!(values(&enc), before),
        }
    }

    #[test]
    fn any_pickle_in_a_sound_archive_never_panics(ops in prop::collection::vec(prop_oneof![
        3 => prop::sample::select(b"}(]q\x00h\x00\x85\x86\x87tdsuaebRQNK\x01X\x01\x00\x00\x00wc\n.".to_vec()),
        1 => any::<u8>(),
    ], 0..64)) {
        let _serial = common::serial();
        // A zip archive with correct CRCs around a random pickle: what the checksums cannot catch.
        use std::io::Write;
        let path = scratch().join("random_pickle.pt");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).expect("created"));
        let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        zip.start_file("archive/data.pkl", stored).expect("entry");
        zip.write_all(&[&[0x80, 2][..], &ops].concat()).expect("written");
        zip.start_file("archive/data/0", stored).expect("entry");
        zip.write_all(&[0u8; 16]).expect("written");
        zip.finish().expect("finished");
        let _ = read_pytorch(&path);
        let _ = Encoder::new(2, 2).expect("encoder").load_pytorch(&path);
    }

    #[test]
    fn corrupt_transformer_checkpoints_never_panic_and_load_nothing_else(damage in corruption()) {
        let _serial = common::serial();
        let (good, saved) = transformer_checkpoint();
        let path = scratch().join("transformer_corrupt.safetensors");
        std::fs::write(&path, corrupt(good, &damage)).expect("written");
        let mut sbs = transformer_trainer();
        let before = values(&sbs.model);
        match sbs.load_checkpoint(&path) {
            Ok(()) => {
                prop_assert_eq!(&values(&sbs.model), saved, "a corrupted checkpoint loaded other values");
                prop_assert_eq!(sbs.total_epochs, 1);
            }
            Err(_) => {
                prop_assert_eq!(values(&sbs.model), before);
                prop_assert_eq!(sbs.total_epochs, 0);
            }
        }
    }
}
