//! Malformed `.pt` files (issue 26): a pickle that takes candle's unpickler apart by position
//! (too few arguments to `_rebuild_tensor_v2`, a storage tuple of the wrong length) or a shape
//! far larger than the data it declares must give an error naming `load_pytorch`, the file and
//! the tensor: never a panic, never an allocation from the declared shape.
//!
//! The files are written here, a pickle by hand in a zip archive as `torch.save` lays it out
//! (`archive/data.pkl`, the storages under `archive/data/`), for a `Linear(2, 2)`: `weight`
//! [2, 2] and `bias` [2].

use crate::common;

use attention_zoo::nn::read_pytorch;
use attention_zoo::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A pickle string (BINUNICODE).
fn text(s: &str) -> Vec<u8> {
    let mut out = vec![b'X'];
    out.extend((s.len() as u32).to_le_bytes());
    out.extend(s.as_bytes());
    out
}

/// A pickle int (BININT).
fn int(i: i32) -> Vec<u8> {
    let mut out = vec![b'J'];
    out.extend(i.to_le_bytes());
    out
}

/// A global (GLOBAL): `module.class`.
fn global(module: &str, class: &str) -> Vec<u8> {
    [b"c".as_slice(), module.as_bytes(), b"\n", class.as_bytes(), b"\n"].concat()
}

/// A tuple (MARK ... TUPLE) of the pickled items.
fn tuple(items: &[Vec<u8>]) -> Vec<u8> {
    [vec![b'('], items.concat(), vec![b't']].concat()
}

/// A persistent id (BINPERSID) for a float32 storage: `('storage', FloatStorage, key, 'cpu',
/// numel)` as torch.save writes it, or only its first `len` items.
fn storage(key: &str, numel: i32, len: usize) -> Vec<u8> {
    let items = [text("storage"), global("torch", "FloatStorage"), text(key), text("cpu"), int(numel)];
    [tuple(&items[..len]), vec![b'Q']].concat()
}

/// `_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks)`, with only
/// its first `args` arguments.
fn rebuild(key: &str, numel: i32, shape: &[i32], args: usize, storage_len: usize) -> Vec<u8> {
    let stride: Vec<i32> = (0..shape.len()).map(|d| shape[d + 1..].iter().fold(1i32, |s, &n| s.saturating_mul(n))).collect();
    let all = [
        storage(key, numel, storage_len),
        int(0),
        tuple(&shape.iter().map(|&d| int(d)).collect::<Vec<_>>()),
        tuple(&stride.iter().map(|&d| int(d)).collect::<Vec<_>>()),
        vec![0x89], // False
        [global("collections", "OrderedDict"), vec![b')', b'R']].concat(),
    ];
    [global("torch._utils", "_rebuild_tensor_v2"), tuple(&all[..args]), vec![b'R']].concat()
}

/// A well-formed float32 tensor of `shape` whose storage `key` holds `numel` floats.
fn tensor(key: &str, numel: i32, shape: &[i32]) -> Vec<u8> {
    rebuild(key, numel, shape, 6, 5)
}

/// Writes a `.pt` archive: a state_dict of `items` (name, pickled value) and the storages
/// (key, float32 values).
fn pt_file(what: &str, items: &[(&str, Vec<u8>)], storages: &[(&str, Vec<f32>)]) -> PathBuf {
    let mut pkl = vec![0x80, 2, b'}', b'('];
    for (name, value) in items {
        pkl.extend(text(name));
        pkl.extend(value);
    }
    pkl.extend([b'u', b'.']);
    let path = std::env::temp_dir().join(format!("attention-zoo-pt-bad-{what}-{}.pt", std::process::id()));
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("archive/data.pkl", stored).unwrap();
    zip.write_all(&pkl).unwrap();
    for (key, values) in storages {
        zip.start_file(format!("archive/data/{key}"), stored).unwrap();
        zip.write_all(&values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    }
    zip.finish().unwrap();
    path
}

/// A `Linear(2, 2)`'s state_dict with `weight` replaced by `weight`.
fn linear_file(what: &str, weight: Vec<u8>) -> PathBuf {
    let storages = [("0", vec![1.0, 2.0, 3.0, 4.0]), ("1", vec![5.0, 6.0])];
    pt_file(what, &[("weight", weight), ("bias", tensor("1", 2, &[2]))], &storages)
}

/// Loads the file both ways (into a `Linear(2, 2)` and with `read_pytorch`), checks that each
/// is an error naming `load_pytorch`, the file and `weight`, and returns the errors.
#[track_caller]
fn refused(path: PathBuf) -> Vec<String> {
    let _serial = common::serial();
    let lin = Linear::new(2, 2).unwrap();
    let before = lin.weight.tensor().to_vec2::<f32>().unwrap();
    let loaded = lin.load_pytorch(&path).map_err(|e| e.to_string());
    let read = read_pytorch(&path).map(|_| ()).map_err(|e| e.to_string());
    std::fs::remove_file(&path).unwrap();
    assert_eq!(lin.weight.tensor().to_vec2::<f32>().unwrap(), before, "nothing loaded");
    [loaded, read]
        .into_iter()
        .map(|r| {
            let e = r.expect_err("a malformed file must be refused");
            let shown = path.display().to_string();
            assert!(e.starts_with("load_pytorch: ") && e.contains(&shown) && e.contains("`weight`"), "{e}");
            e
        })
        .collect()
}

#[test]
fn a_well_formed_hand_written_file_loads() {
    // The writer above is right: the same file with nothing wrong loads.
    let path = linear_file("good", tensor("0", 4, &[2, 2]));
    let _serial = common::serial();
    let lin = Linear::new(2, 2).unwrap();
    let loaded = lin.load_pytorch(&path);
    std::fs::remove_file(&path).unwrap();
    loaded.unwrap();
    assert_eq!(lin.weight.tensor().to_vec2::<f32>().unwrap(), [[1.0, 2.0], [3.0, 4.0]]);
}

#[test]
fn rebuild_tensor_v2_with_too_few_arguments_is_refused() {
    for args in [0, 1, 2, 3] {
        for e in refused(linear_file("few-args", rebuild("0", 4, &[2, 2], args, 5))) {
            assert!(e.contains(&format!("_rebuild_tensor_v2 has {args} arguments, expected")), "{e}");
        }
    }
}

#[test]
fn a_storage_tuple_of_the_wrong_length_is_refused() {
    for len in [0, 2, 4] {
        for e in refused(linear_file("storage-len", rebuild("0", 4, &[2, 2], 6, len))) {
            assert!(e.contains(&format!("its storage is a tuple of {len}, expected 5")), "{e}");
        }
    }
}

#[test]
fn the_wrappers_around_rebuild_tensor_v2_with_too_few_arguments_are_refused() {
    let from_type = [global("torch._tensor", "_rebuild_from_type_v2"), tuple(&[tensor("0", 4, &[2, 2])]), vec![b'R']].concat();
    for e in refused(linear_file("from-type", from_type)) {
        assert!(e.contains("_rebuild_from_type_v2 has 1 arguments, expected"), "{e}");
    }
    let parameter = [global("torch._utils", "_rebuild_parameter"), tuple(&[]), vec![b'R']].concat();
    for e in refused(linear_file("parameter", parameter)) {
        assert!(e.contains("_rebuild_parameter has 0 arguments, expected"), "{e}");
    }
}

#[test]
fn a_shape_far_larger_than_its_storage_is_refused_without_allocating() {
    let start = Instant::now();
    // 2^40 floats (4 TiB) declared, 4 stored.
    for e in refused(linear_file("huge", tensor("0", 4, &[1 << 20, 1 << 20]))) {
        assert!(e.contains("its shape [1048576, 1048576] and dtype float32 take 4398046511104 bytes"), "{e}");
        assert!(e.contains("its data `archive/data/0` holds 16"), "{e}");
    }
    // A shape that fits the memory but not the data: 5 floats declared, 4 stored.
    for e in refused(linear_file("one-more", tensor("0", 4, &[5]))) {
        assert!(e.contains("take 20 bytes (with its offset), its data `archive/data/0` holds 16"), "{e}");
    }
    // A product of dimensions past u64.
    for e in refused(linear_file("overflow", tensor("0", 4, &[i32::MAX, i32::MAX, i32::MAX]))) {
        assert!(e.contains("is too large to be stored"), "{e}");
    }
    // Data the archive does not have.
    for e in refused(linear_file("no-data", tensor("7", 4, &[2, 2]))) {
        assert!(e.contains("its data `archive/data/7` is not in the archive"), "{e}");
    }
    assert!(start.elapsed() < Duration::from_secs(10), "checked before anything was allocated: {:?}", start.elapsed());
}

/// A pickle that doubles an object 40 times by fetching it twice from the memo (6 bytes a
/// doubling). Python's unpickler shares the fetched object; candle's copies it, so read by candle
/// alone these few hundred bytes asked for 2^40 objects and the process ran out of memory.
#[test]
fn a_pickle_that_copies_itself_into_any_size_is_refused() {
    let start = Instant::now();
    let mut bomb = vec![b']', b'q', 0];
    for _ in 0..40 {
        bomb.extend([b'h', 0, b'h', 0, 0x86, b'q', 0]);
    }
    let path = pt_file("memo-bomb", &[("weight", bomb), ("bias", tensor("1", 2, &[2]))], &[("1", vec![5.0, 6.0])]);
    let _serial = common::serial();
    let lin = Linear::new(2, 2).unwrap();
    let e = lin.load_pytorch(&path).unwrap_err().to_string();
    let read = read_pytorch(&path).map(|_| ()).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    for e in [e, read] {
        assert!(e.starts_with("load_pytorch: ") && e.contains("pickle") && e.contains("copies"), "{e}");
    }
    assert!(start.elapsed() < Duration::from_secs(10), "refused before candle read it: {:?}", start.elapsed());
}
