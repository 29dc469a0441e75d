//! The `.gguf` reader: against a file written by the `gguf` Python package's own writer
//! (`tests/data/small.gguf`, `scripts/gguf_vectors.py`), against files these tests write, and
//! on hostile files (truncated at every byte, corrupted, lying counts and lengths): always an
//! error, never a panic or an allocation larger than the file.

use half::f16;
use layout::Error;
use layout::packed::{
    GgufArray, GgufFileError, GgufReader, GgufTensor, GgufValue, Metadata, Q4_0Matrix, Q8_0Matrix,
};
use std::io::Cursor;

const SMALL: &[u8] = include_bytes!("../data/small.gguf");

fn read(bytes: &[u8]) -> Result<GgufReader<Cursor<Vec<u8>>>, GgufFileError> {
    GgufReader::new(Cursor::new(bytes.to_vec()))
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn reads_the_file_the_gguf_package_wrote() -> Result<(), Error> {
    let mut f = read(SMALL)?;
    assert_eq!((f.version(), f.alignment()), (3, 64));
    assert_eq!(f.data_start() % 64, 0);
    // the values scripts/gguf_vectors.py wrote
    let want = [
        ("general.architecture", GgufValue::String("test".into())),
        ("general.alignment", GgufValue::U32(64)),
        ("t.u8", GgufValue::U8(200)),
        ("t.i8", GgufValue::I8(-100)),
        ("t.u16", GgufValue::U16(60000)),
        ("t.i16", GgufValue::I16(-30000)),
        ("t.u32", GgufValue::U32(4_000_000_000)),
        ("t.i32", GgufValue::I32(-2_000_000_000)),
        ("t.f32", GgufValue::F32(0.15625)),
        ("t.bool", GgufValue::Bool(true)),
        ("t.str", GgufValue::String("layout ✓".into())),
        ("t.u64", GgufValue::U64((1 << 63) + 5)),
        ("t.i64", GgufValue::I64(-(1 << 62))),
        ("t.f64", GgufValue::F64(-2.5e-300)),
        (
            "t.arr_i32",
            GgufValue::Array(GgufArray::I32(vec![1, -2, 3])),
        ),
        (
            "t.arr_str",
            GgufValue::Array(GgufArray::String(["a", "", "ccc"].map(String::from).into())),
        ),
    ];
    for (k, v) in &want {
        assert_eq!(f.get(k), Some(v), "{k}");
    }
    assert_eq!(f.metadata().len(), want.len());
    let names: Vec<&str> = f.tensors().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["w.f32", "w.f16", "w.q4_0", "w.q8_0", "v.f32"]);
    assert_eq!(f.tensor_info("w.q4_0").unwrap().dims(), &[64, 8]);
    assert_eq!(f.tensor_info("w.q4_0").unwrap().bytes(), Some(8 * 2 * 18));

    // the tensors: the same weights as the committed block vectors
    let w = floats(include_bytes!("../data/gguf_input_f32.bin"));
    let GgufTensor::F32(t) = f.tensor("w.f32")? else {
        panic!("F32")
    };
    assert_eq!(t.shape().leaves(), &[8, 64]);
    assert!(t.iter().copied().eq(w.iter().copied()));
    let GgufTensor::F16(h) = f.tensor("w.f16")? else {
        panic!("F16")
    };
    assert_eq!(h.shape().leaves(), &[4, 64]);
    assert!(
        h.iter()
            .copied()
            .eq(w[..256].iter().map(|&x| f16::from_f32(x)))
    );
    let GgufTensor::Q4_0(q) = f.tensor("w.q4_0")? else {
        panic!("Q4_0")
    };
    assert_eq!(
        q,
        Q4_0Matrix::from_bytes(64, 8, include_bytes!("../data/gguf_q4_0.bin"))?
    );
    let GgufTensor::Q8_0(q) = f.tensor("w.q8_0")? else {
        panic!("Q8_0")
    };
    assert_eq!(
        q,
        Q8_0Matrix::from_bytes(64, 8, include_bytes!("../data/gguf_q8_0.bin"))?
    );
    let GgufTensor::F32(v) = f.tensor("v.f32")? else {
        panic!("F32")
    };
    assert!(v.iter().copied().eq((0..5).map(|i| i as f32)));
    assert_eq!(
        f.tensor("nope").unwrap_err(),
        GgufFileError::NoTensor {
            name: "nope".into()
        }
    );

    // skipping the metadata: the same tensors, no values
    let mut s = GgufReader::with_metadata(Cursor::new(SMALL.to_vec()), Metadata::Skip)?;
    assert!(s.metadata().is_empty());
    assert_eq!(s.alignment(), 64);
    assert_eq!(s.tensors(), f.tensors());
    assert_eq!(
        s.tensor_bytes("w.q8_0")?,
        include_bytes!("../data/gguf_q8_0.bin")
    );
    Ok(())
}

/// A GGUF file, written field by field.
#[derive(Default)]
struct Writer {
    kv: Vec<u8>,
    n_kv: u64,
    infos: Vec<u8>,
    n_tensors: u64,
    data: Vec<u8>,
    alignment: u64,
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as u64).to_le_bytes());
    b.extend(s.as_bytes());
}

impl Writer {
    fn new(alignment: Option<u32>) -> Writer {
        let mut w = Writer {
            alignment: 32,
            ..Writer::default()
        };
        if let Some(a) = alignment {
            w.kv("general.alignment", 4, &a.to_le_bytes());
            w.alignment = a.into();
        }
        w
    }

    fn kv(&mut self, key: &str, ty: u32, payload: &[u8]) -> &mut Self {
        put_str(&mut self.kv, key);
        self.kv.extend(ty.to_le_bytes());
        self.kv.extend(payload);
        self.n_kv += 1;
        self
    }

    fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, data: &[u8]) -> &mut Self {
        while !(self.data.len() as u64).is_multiple_of(self.alignment) {
            self.data.push(0);
        }
        put_str(&mut self.infos, name);
        self.infos.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.infos.extend(d.to_le_bytes());
        }
        self.infos.extend(ty.to_le_bytes());
        self.infos.extend((self.data.len() as u64).to_le_bytes());
        self.data.extend(data);
        self.n_tensors += 1;
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(self.n_tensors.to_le_bytes());
        b.extend(self.n_kv.to_le_bytes());
        b.extend(&self.kv);
        b.extend(&self.infos);
        while !(b.len() as u64).is_multiple_of(self.alignment) {
            b.push(0);
        }
        b.extend(&self.data);
        b
    }
}

#[test]
fn reads_files_the_tests_write() -> Result<(), Error> {
    let q4 = include_bytes!("../data/gguf_q4_0.bin");
    for alignment in [None, Some(1), Some(8), Some(128)] {
        let mut w = Writer::new(alignment);
        let mut s = Vec::new();
        put_str(&mut s, "hi");
        w.kv("s", 8, &s).kv("n", 10, &7u64.to_le_bytes());
        // an array of arrays of u16
        let mut arr = [9u32.to_le_bytes(), [0; 4]].concat(); // two arrays …
        arr.truncate(4);
        arr.extend(2u64.to_le_bytes());
        for row in [[1u16, 2], [3, 4]] {
            // … of two u16
            arr.extend(2u32.to_le_bytes());
            arr.extend(2u64.to_le_bytes());
            for x in row {
                arr.extend(x.to_le_bytes());
            }
        }
        w.kv("nested", 9, &arr);
        let halves: Vec<u8> = (0..6)
            .flat_map(|i| f16::from_f32(i as f32).to_le_bytes())
            .collect();
        w.tensor("h", &[3, 2], 1, &halves);
        w.tensor("q", &[64, 8], 2, q4);
        w.tensor("q4_1", &[32, 1], 3, &[0; 20]);
        let bytes = w.bytes();
        let mut f = read(&bytes)?;
        assert_eq!(f.alignment(), alignment.map_or(32, u64::from));
        assert_eq!(f.get("s"), Some(&GgufValue::String("hi".into())));
        assert_eq!(f.get("n").and_then(GgufValue::as_u64), Some(7));
        let u = |a: u16, b: u16| GgufArray::U16(vec![a, b]);
        let nested = GgufArray::Array(vec![u(1, 2), u(3, 4)]);
        assert_eq!(f.get("nested"), Some(&GgufValue::Array(nested)));
        let GgufTensor::F16(h) = f.tensor("h")? else {
            panic!("F16")
        };
        assert_eq!(h.shape().leaves(), &[2, 3]);
        assert_eq!(h[[1, 2]], f16::from_f32(5.0));
        let GgufTensor::Q4_0(q) = f.tensor("q")? else {
            panic!("Q4_0")
        };
        assert_eq!(q, Q4_0Matrix::from_bytes(64, 8, q4)?);
        // a type the reader knows the size of but does not decode: raw bytes, or a sentence
        assert_eq!(f.tensor_bytes("q4_1")?, vec![0; 20]);
        let e = f.tensor("q4_1").unwrap_err();
        assert!(matches!(
            e,
            GgufFileError::UnsupportedType { ggml_type: 3, .. }
        ));
        assert!(
            format!("{e:?}").starts_with(r#"UnsupportedType("gguf: tensor "q4_1" has ggml type 3"#)
        );
    }
    Ok(())
}

/// Read the header and every tensor; any error is fine, a panic is not.
fn read_all(bytes: &[u8], metadata: Metadata) -> Result<(), GgufFileError> {
    let mut f = GgufReader::with_metadata(Cursor::new(bytes.to_vec()), metadata)?;
    let names: Vec<String> = f.tensors().iter().map(|t| t.name().to_string()).collect();
    for n in names {
        if let Some(b) = f.tensor_info(&n).and_then(|t| t.bytes()) {
            assert!(b <= bytes.len() as u64, "a tensor bigger than the file");
        }
        let _ = f.tensor(&n)?;
    }
    Ok(())
}

#[test]
fn every_truncation_is_an_error() {
    // the file ends with padding to the alignment after the last tensor's data
    let f = read(SMALL).unwrap();
    let end = f
        .tensors()
        .iter()
        .map(|t| t.file_offset() + t.bytes().unwrap())
        .max();
    let end = end.unwrap() as usize;
    assert!(end < SMALL.len());
    for len in 0..end {
        for m in [Metadata::Keep, Metadata::Skip] {
            assert!(read_all(&SMALL[..len], m).is_err(), "truncated at {len}");
        }
    }
    for len in end..=SMALL.len() {
        assert!(read_all(&SMALL[..len], Metadata::Keep).is_ok());
    }
}

#[test]
fn corrupted_headers_never_panic() {
    let header = read(SMALL).unwrap().data_start() as usize;
    for at in 0..header {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, SMALL[at] ^ 0x10] {
            let mut b = SMALL.to_vec();
            b[at] = v;
            let _ = read_all(&b, Metadata::Keep);
            let _ = read_all(&b, Metadata::Skip);
        }
    }
}

#[test]
fn lying_counts_and_lengths_are_refused_before_allocating() {
    let header = |n_tensors: u64, n_kv: u64| {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(n_tensors.to_le_bytes());
        b.extend(n_kv.to_le_bytes());
        b
    };
    let trunc = |r: Result<_, GgufFileError>| matches!(r, Err(GgufFileError::Truncated { .. }));
    assert!(trunc(read(&header(u64::MAX, 0)).map(|_| ())));
    assert!(trunc(read(&header(0, u64::MAX)).map(|_| ())));
    // a key of 2^62 bytes
    let mut b = header(0, 1);
    b.extend((1u64 << 62).to_le_bytes());
    assert!(trunc(read(&b).map(|_| ())));
    // an array of 2^61 u64
    let mut b = header(0, 1);
    put_str(&mut b, "a");
    b.extend(9u32.to_le_bytes());
    b.extend(10u32.to_le_bytes());
    b.extend((1u64 << 61).to_le_bytes());
    assert!(trunc(read(&b).map(|_| ())));
    // arrays nested nine deep
    let mut b = header(0, 1);
    put_str(&mut b, "a");
    b.extend(9u32.to_le_bytes());
    for _ in 0..9 {
        b.extend(9u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
    }
    b.extend([0; 64]);
    assert!(matches!(read(&b), Err(GgufFileError::TooDeep { .. })));
    // an unknown value type, a bad alignment, not GGUF, version 1
    let mut b = header(0, 1);
    put_str(&mut b, "a");
    b.extend(13u32.to_le_bytes());
    assert!(matches!(
        read(&b),
        Err(GgufFileError::BadValueType { value_type: 13, .. })
    ));
    let w = Writer::new(Some(24));
    assert_eq!(
        read(&w.bytes()).unwrap_err(),
        GgufFileError::BadAlignment { alignment: 24 }
    );
    assert!(matches!(read(b"GGML"), Err(GgufFileError::BadMagic { .. })));
    let mut b = header(0, 0);
    b[4] = 1;
    assert_eq!(
        read(&b).unwrap_err(),
        GgufFileError::UnsupportedVersion { version: 1 }
    );
    b[4..8].copy_from_slice(&3u32.to_be_bytes());
    assert!(read(&b).unwrap_err().to_string().contains("big-endian"));
}

#[test]
fn lying_tensor_infos_are_refused() {
    let bad = |dims: &[u64], ty: u32, data: &[u8]| {
        let mut w = Writer::new(None);
        w.tensor("t", dims, ty, data);
        read(&w.bytes()).map(|_| ())
    };
    assert!(matches!(
        bad(&[1, 1, 1, 1, 1], 0, &[0; 4]),
        Err(GgufFileError::BadDims { n_dims: 5, .. })
    ));
    assert!(matches!(
        bad(&[], 0, &[]),
        Err(GgufFileError::BadDims { n_dims: 0, .. })
    ));
    assert!(matches!(
        bad(&[0, 4], 0, &[]),
        Err(GgufFileError::BadShape { .. })
    ));
    assert!(matches!(
        bad(&[1 << 32, 1 << 32], 0, &[]),
        Err(GgufFileError::BadShape { .. })
    ));
    // Q4_0 rows that are not whole blocks
    assert!(matches!(
        bad(&[33, 1], 2, &[0; 36]),
        Err(GgufFileError::BadShape { .. })
    ));
    // more data than the file holds: 2^40 floats
    assert!(matches!(
        bad(&[1 << 20, 1 << 20], 0, &[0; 16]),
        Err(GgufFileError::DataOutOfFile { .. })
    ));
    // an offset that is not aligned
    let mut w = Writer::new(None);
    w.tensor("t", &[1], 0, &[0; 4]);
    let mut b = w.bytes();
    let off_at = 24 + w.kv.len() + w.infos.len() - 8; // the info's offset field
    b[off_at] = 4;
    assert!(matches!(
        read(&b),
        Err(GgufFileError::Misaligned { offset: 4, .. })
    ));
}
