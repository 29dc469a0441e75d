//! Reading `.gguf` files (the llama.cpp / ggml model format, versions 2 and 3): the header,
//! the metadata, the tensor infos, and the data of `F32`, `F16`, `Q4_0` and `Q8_0` tensors as
//! the library's types — owned [`Tensor`]s for the floats, [`Q4_0Matrix`] / [`Q8_0Matrix`] for
//! the blocks (the GEMM operands of [`crate::gemm`]).
//!
//! A file is `GGUF`, a version, the tensor and metadata counts, the metadata key/value pairs,
//! one info per tensor (name, dimensions `ne[0]` fastest, type, offset), then the data section
//! at the next multiple of the alignment (`general.alignment`, 32 unless set). A tensor of
//! dimensions `[k, n]` is `n` rows of `k` values: a [`Tensor`] of shape `[n, k]` (row-major),
//! or for `Q4_0`/`Q8_0` the `k × n` operand `B` of `C = A·B` ([`GgufMatrix`]).
//!
//! [`GgufReader::new`] reads the header only; [`GgufReader::tensor`] reads one tensor's bytes
//! when asked. Every count, length and offset is checked against the file's length before
//! anything is allocated, so a truncated or hostile file is an error, never a panic; what is
//! allocated is bounded by the file's length (metadata arrays are typed vectors, at most three
//! times their bytes in the file, for arrays of strings).
//!
//! ```
//! use layout::packed::{GgufReader, GgufTensor, GgufValue};
//! # fn small_gguf() -> Vec<u8> {
//! #     let mut f = Vec::new();
//! #     let s = |f: &mut Vec<u8>, s: &str| { f.extend((s.len() as u64).to_le_bytes()); f.extend(s.as_bytes()) };
//! #     f.extend(b"GGUF"); f.extend(3u32.to_le_bytes()); f.extend(1u64.to_le_bytes()); f.extend(1u64.to_le_bytes());
//! #     s(&mut f, "general.architecture"); f.extend(8u32.to_le_bytes()); s(&mut f, "llama");
//! #     s(&mut f, "w"); f.extend(2u32.to_le_bytes()); f.extend(3u64.to_le_bytes()); f.extend(2u64.to_le_bytes());
//! #     f.extend(0u32.to_le_bytes()); f.extend(0u64.to_le_bytes());
//! #     while f.len() % 32 != 0 { f.push(0) }
//! #     for x in [1f32, 2.0, 3.0, 4.0, 5.0, 6.0] { f.extend(x.to_le_bytes()) }
//! #     f
//! # }
//! let bytes = small_gguf(); // a file with one F32 tensor "w" of dimensions [3, 2]
//! let mut file = GgufReader::new(std::io::Cursor::new(bytes))?;
//! assert_eq!(file.get("general.architecture"), Some(&GgufValue::String("llama".into())));
//! let info = file.tensor_info("w").unwrap();
//! assert_eq!(info.dims(), &[3, 2]);
//! let GgufTensor::F32(w) = file.tensor("w")? else { panic!("an F32 tensor") };
//! assert_eq!(w.shape().leaves(), &[2, 3]); // 2 rows of 3
//! assert_eq!(w[[1, 0]], 4.0);
//! # Ok::<(), layout::Error>(())
//! ```
//!
//! A model file: `GgufReader::open("model.gguf")?`, then `tensor("blk.0.attn_q.weight")?`.

use super::{PackedError, Q4_0Matrix, Q8_0Matrix};
use crate::tensor::{Tensor, TensorOwned};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use half::f16;
use std::io::{self, Read, Seek, SeekFrom};

/// The ggml type numbers of the tensor types this reader decodes.
const F32: u32 = 0;
const F16: u32 = 1;
const Q4_0: u32 = 2;
const Q8_0: u32 = 8;

/// ggml's `GGML_MAX_DIMS`.
const MAX_DIMS: u32 = 4;
/// How deep arrays of arrays may nest (the format allows it; the reader recurses).
const MAX_ARRAY_DEPTH: u32 = 8;
/// The alignment of the data section when the file does not set `general.alignment`.
const DEFAULT_ALIGNMENT: u64 = 32;

/// Why a GGUF file could not be read. Every message names the byte position or the tensor.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GgufFileError {
    /// The reader failed (not end of file: a short file is [`GgufFileError::Truncated`]).
    Io {
        /// What the error was.
        kind: io::ErrorKind,
        /// The byte position of the read.
        at: u64,
    },
    /// The file does not start with `GGUF`.
    BadMagic {
        /// The first four bytes.
        found: [u8; 4],
    },
    /// A version other than 2 or 3 (version 1 used 32-bit counts).
    UnsupportedVersion {
        /// The version in the file.
        version: u32,
    },
    /// The file ends inside an item.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Its byte position.
        at: u64,
        /// The bytes it needs.
        needed: u64,
        /// The bytes left in the file from `at`.
        left: u64,
    },
    /// A metadata value type that GGUF does not define.
    BadValueType {
        /// The type number.
        value_type: u32,
        /// The byte position of the type.
        at: u64,
    },
    /// Arrays nested deeper than the reader follows.
    TooDeep {
        /// The byte position of the innermost array.
        at: u64,
    },
    /// A string (a key, a name or a value) that is not UTF-8.
    NotUtf8 {
        /// The byte position of the string.
        at: u64,
    },
    /// `general.alignment` is not a power of two that fits `u32`, or has another type.
    BadAlignment {
        /// The value found (0 when it is not an unsigned 32-bit integer).
        alignment: u64,
    },
    /// A tensor with more than four dimensions, or none.
    BadDims {
        /// The tensor.
        name: String,
        /// Its number of dimensions.
        n_dims: u32,
    },
    /// A tensor whose element or byte count overflows, or a dimension of 0.
    BadShape {
        /// The tensor.
        name: String,
        /// Its dimensions, `ne[0]` first.
        dims: Vec<u64>,
    },
    /// A tensor whose data offset is not a multiple of the alignment.
    Misaligned {
        /// The tensor.
        name: String,
        /// Its offset in the data section.
        offset: u64,
        /// The alignment.
        alignment: u64,
    },
    /// A tensor whose data reaches past the end of the file.
    DataOutOfFile {
        /// The tensor.
        name: String,
        /// The byte position of its data.
        at: u64,
        /// Its size in bytes.
        bytes: u64,
        /// The file's length.
        len: u64,
    },
    /// No tensor has this name.
    NoTensor {
        /// The name asked for.
        name: String,
    },
    /// A tensor type this reader does not decode (it decodes `F32`, `F16`, `Q4_0`, `Q8_0`).
    UnsupportedType {
        /// The tensor.
        name: String,
        /// Its ggml type number.
        ggml_type: u32,
    },
    /// The tensor's blocks were refused (`Q4_0`/`Q8_0` with `ne[0]` not a multiple of 32).
    Packed(PackedError),
    /// The tensor could not be built or allocated.
    Tensor(crate::tensor::TensorError),
}

crate::error::debug_as_sentence!(GgufFileError {
    Io,
    BadMagic,
    UnsupportedVersion,
    Truncated,
    BadValueType,
    TooDeep,
    NotUtf8,
    BadAlignment,
    BadDims,
    BadShape,
    Misaligned,
    DataOutOfFile,
    NoTensor,
    UnsupportedType,
    Packed,
    Tensor
});

impl fmt::Display for GgufFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GgufFileError::Io { kind, at } => write!(f, "gguf: reading at byte {at}: {kind}"),
            GgufFileError::BadMagic { found } => write!(
                f,
                "gguf: the file starts with {found:02x?}, not \"GGUF\"; it is not a GGUF file"
            ),
            GgufFileError::UnsupportedVersion { version }
                if matches!(version.swap_bytes(), 2 | 3) =>
            {
                write!(
                    f,
                    "gguf: version {} stored big-endian: this reader reads little-endian files",
                    version.swap_bytes()
                )
            }
            GgufFileError::UnsupportedVersion { version } => write!(
                f,
                "gguf: version {version} is not supported (versions 2 and 3 are)"
            ),
            GgufFileError::Truncated {
                what,
                at,
                needed,
                left,
            } => write!(
                f,
                "gguf: the {what} at byte {at} needs {needed} bytes, the file has {left} left; \
                 the file is truncated or corrupt"
            ),
            GgufFileError::BadValueType { value_type, at } => write!(
                f,
                "gguf: metadata value type {value_type} at byte {at} is not a GGUF type (0..=12)"
            ),
            GgufFileError::TooDeep { at } => write!(
                f,
                "gguf: the array at byte {at} nests arrays deeper than {MAX_ARRAY_DEPTH} levels"
            ),
            GgufFileError::NotUtf8 { at } => {
                write!(f, "gguf: the string at byte {at} is not UTF-8")
            }
            GgufFileError::BadAlignment { alignment } => write!(
                f,
                "gguf: general.alignment is {alignment}; it must be a u32 power of two"
            ),
            GgufFileError::BadDims { name, n_dims } => write!(
                f,
                "gguf: tensor {name:?} has {n_dims} dimensions; GGUF tensors have 1 to {MAX_DIMS}"
            ),
            GgufFileError::BadShape { name, dims } => write!(
                f,
                "gguf: tensor {name:?} has dimensions {dims:?}: a zero extent, or more elements \
                 than fit"
            ),
            GgufFileError::Misaligned {
                name,
                offset,
                alignment,
            } => write!(
                f,
                "gguf: tensor {name:?} starts at offset {offset} of the data section, not a \
                 multiple of the alignment {alignment}"
            ),
            GgufFileError::DataOutOfFile {
                name,
                at,
                bytes,
                len,
            } => write!(
                f,
                "gguf: tensor {name:?} has {bytes} bytes from byte {at}, past the end of the \
                 file ({len} bytes)"
            ),
            GgufFileError::NoTensor { name } => {
                write!(f, "gguf: the file has no tensor named {name:?}")
            }
            GgufFileError::UnsupportedType { name, ggml_type } => write!(
                f,
                "gguf: tensor {name:?} has ggml type {ggml_type}; this reader decodes F32 (0), \
                 F16 (1), Q4_0 (2) and Q8_0 (8) (GgufReader::tensor_bytes gives the raw bytes)"
            ),
            GgufFileError::Packed(e) => write!(f, "gguf: {e}"),
            GgufFileError::Tensor(e) => write!(f, "gguf: {e}"),
        }
    }
}

impl std::error::Error for GgufFileError {}

impl From<PackedError> for GgufFileError {
    fn from(e: PackedError) -> Self {
        GgufFileError::Packed(e)
    }
}

impl From<crate::tensor::TensorError> for GgufFileError {
    fn from(e: crate::tensor::TensorError) -> Self {
        GgufFileError::Tensor(e)
    }
}

/// A metadata value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GgufValue {
    /// Type 0.
    U8(u8),
    /// Type 1.
    I8(i8),
    /// Type 2.
    U16(u16),
    /// Type 3.
    I16(i16),
    /// Type 4.
    U32(u32),
    /// Type 5.
    I32(i32),
    /// Type 6.
    F32(f32),
    /// Type 7 (a byte, 0 or 1; other values are read as `true`).
    Bool(bool),
    /// Type 8.
    String(String),
    /// Type 9: values all of one type.
    Array(GgufArray),
    /// Type 10.
    U64(u64),
    /// Type 11.
    I64(i64),
    /// Type 12.
    F64(f64),
}

impl GgufValue {
    /// The value as a `u64` when it is a non-negative integer of any width.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            GgufValue::U8(v) => Some(v.into()),
            GgufValue::U16(v) => Some(v.into()),
            GgufValue::U32(v) => Some(v.into()),
            GgufValue::U64(v) => Some(v),
            GgufValue::I8(v) => u64::try_from(v).ok(),
            GgufValue::I16(v) => u64::try_from(v).ok(),
            GgufValue::I32(v) => u64::try_from(v).ok(),
            GgufValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The value as a `&str` when it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GgufValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A metadata array: its elements, typed (a tokenizer's `tokens` is `String`, its `scores`
/// `F32`), so an array takes about the memory of its bytes in the file.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GgufArray {
    /// Elements of type 0.
    U8(Vec<u8>),
    /// Type 1.
    I8(Vec<i8>),
    /// Type 2.
    U16(Vec<u16>),
    /// Type 3.
    I16(Vec<i16>),
    /// Type 4.
    U32(Vec<u32>),
    /// Type 5.
    I32(Vec<i32>),
    /// Type 6.
    F32(Vec<f32>),
    /// Type 7.
    Bool(Vec<bool>),
    /// Type 8.
    String(Vec<String>),
    /// Type 9: arrays (each of its own element type).
    Array(Vec<GgufArray>),
    /// Type 10.
    U64(Vec<u64>),
    /// Type 11.
    I64(Vec<i64>),
    /// Type 12.
    F64(Vec<f64>),
}

impl GgufArray {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            GgufArray::U8(v) => v.len(),
            GgufArray::I8(v) => v.len(),
            GgufArray::U16(v) => v.len(),
            GgufArray::I16(v) => v.len(),
            GgufArray::U32(v) => v.len(),
            GgufArray::I32(v) => v.len(),
            GgufArray::F32(v) => v.len(),
            GgufArray::Bool(v) => v.len(),
            GgufArray::String(v) => v.len(),
            GgufArray::Array(v) => v.len(),
            GgufArray::U64(v) => v.len(),
            GgufArray::I64(v) => v.len(),
            GgufArray::F64(v) => v.len(),
        }
    }

    /// `true` when the array has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether [`GgufReader::with_metadata`] keeps the metadata values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metadata {
    /// Keep every key and value (a model's tokenizer arrays included).
    Keep,
    /// Check and skip the values (only `general.alignment` is read); [`GgufReader::metadata`]
    /// is then empty.
    Skip,
}

/// One tensor's info: its name, dimensions, type and where its data is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufTensorInfo {
    name: String,
    dims: Vec<u64>,
    ggml_type: u32,
    offset: u64,
    bytes: Option<u64>,
}

impl GgufTensorInfo {
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dimensions, `ne[0]` (the fastest) first: `[k, n]` is `n` rows of `k` values.
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// The ggml type number (0 `F32`, 1 `F16`, 2 `Q4_0`, 8 `Q8_0`, …).
    pub fn ggml_type(&self) -> u32 {
        self.ggml_type
    }

    /// The byte position of the data in the file.
    pub fn file_offset(&self) -> u64 {
        self.offset
    }

    /// The size of the data in bytes, for the types whose block size the reader knows (every
    /// type of ggml's `ggml_type_traits` up to `BF16` but the ternary and importance-matrix
    /// ones), `None` otherwise.
    pub fn bytes(&self) -> Option<u64> {
        self.bytes
    }

    /// The number of elements (the product of the dimensions; checked when the file was read).
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// A tensor's data, decoded.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum GgufTensor {
    /// `F32`: a row-major tensor of the dimensions reversed (`[k, n]` → shape `[n, k]`).
    F32(TensorOwned<f32>),
    /// `F16`: as `F32`.
    F16(TensorOwned<f16>),
    /// `Q4_0` of dimensions `[k, n, …]`: the `k × (n·…)` operand `B`.
    Q4_0(Q4_0Matrix),
    /// `Q8_0`, as `Q4_0`.
    Q8_0(Q8_0Matrix),
}

/// A GGUF file: its header read, its tensors read on demand from `R`.
#[derive(Debug)]
pub struct GgufReader<R> {
    source: R,
    len: u64,
    version: u32,
    alignment: u64,
    data_start: u64,
    metadata: Vec<(String, GgufValue)>,
    tensors: Vec<GgufTensorInfo>,
}

impl GgufReader<io::BufReader<std::fs::File>> {
    /// Open the file at `path` and read its header, keeping the metadata.
    ///
    /// # Errors
    /// [`GgufFileError::Io`] when the file cannot be opened; as [`GgufReader::new`].
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self, GgufFileError> {
        let f = std::fs::File::open(path).map_err(|e| GgufFileError::Io {
            kind: e.kind(),
            at: 0,
        })?;
        GgufReader::new(io::BufReader::new(f))
    }
}

impl<R: Read + Seek> GgufReader<R> {
    /// Read the header of the GGUF file in `source` (from its start), keeping the metadata.
    ///
    /// # Errors
    /// A file that is not GGUF 2 or 3, that is truncated, or whose metadata or tensor infos are
    /// malformed (see [`GgufFileError`]); every tensor's data must lie inside the file.
    pub fn new(source: R) -> Result<Self, GgufFileError> {
        GgufReader::with_metadata(source, Metadata::Keep)
    }

    /// [`GgufReader::new`], keeping or skipping the metadata values.
    ///
    /// # Errors
    /// As [`GgufReader::new`].
    pub fn with_metadata(mut source: R, metadata: Metadata) -> Result<Self, GgufFileError> {
        let io_err = |e: io::Error, at| GgufFileError::Io { kind: e.kind(), at };
        let len = source.seek(SeekFrom::End(0)).map_err(|e| io_err(e, 0))?;
        source.seek(SeekFrom::Start(0)).map_err(|e| io_err(e, 0))?;
        let mut r = Cursor {
            source: &mut source,
            at: 0,
            len,
            keep: true,
        };
        let magic: [u8; 4] = r.array("magic")?;
        if &magic != b"GGUF" {
            return Err(GgufFileError::BadMagic { found: magic });
        }
        let version = r.u32("version")?;
        if version != 2 && version != 3 {
            return Err(GgufFileError::UnsupportedVersion { version });
        }
        let n_tensors = r.u64("tensor count")?;
        let n_kv = r.u64("metadata count")?;

        // a key/value pair takes at least 8 + 4 + 1 bytes, a tensor info 8 + 4 + 8 + 4 + 8:
        // the counts cannot pass what the file holds (never a capacity from the file alone)
        let mut kept = Vec::with_capacity(bounded(n_kv, r.left(), 13));
        let mut alignment = DEFAULT_ALIGNMENT;
        for _ in 0..n_kv {
            let key = r.string("metadata key")?;
            let ty_at = r.at;
            let ty = r.u32("metadata value type")?;
            let keep = metadata == Metadata::Keep || key == "general.alignment";
            let value = r.value(ty, ty_at, keep, 0)?;
            if key == "general.alignment" {
                alignment = match value {
                    Some(GgufValue::U32(a)) if a.is_power_of_two() => a.into(),
                    Some(GgufValue::U32(a)) => {
                        return Err(GgufFileError::BadAlignment {
                            alignment: a.into(),
                        });
                    }
                    _ => return Err(GgufFileError::BadAlignment { alignment: 0 }),
                };
            }
            if let (Metadata::Keep, Some(v)) = (metadata, value) {
                kept.push((key, v));
            }
        }

        let mut infos = Vec::with_capacity(bounded(n_tensors, r.left(), 32));
        for _ in 0..n_tensors {
            let name = r.string("tensor name")?;
            let n_dims = r.u32("tensor dimension count")?;
            if n_dims == 0 || n_dims > MAX_DIMS {
                return Err(GgufFileError::BadDims { name, n_dims });
            }
            let mut dims = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                dims.push(r.u64("tensor dimension")?);
            }
            let ggml_type = r.u32("tensor type")?;
            let offset = r.u64("tensor offset")?;
            let elements = dims
                .iter()
                .try_fold(1u64, |p, &d| (d > 0).then(|| p.checked_mul(d)).flatten());
            let Some(elements) = elements.filter(|&e| e <= i64::MAX as u64) else {
                return Err(GgufFileError::BadShape { name, dims });
            };
            // blocks run along ne[0] (every row is whole blocks); bytes <= elements·292/256
            let bytes = match type_size(ggml_type) {
                Some((block, size)) if dims[0] % block == 0 => {
                    elements.checked_mul(size).map(|b| b / block)
                }
                Some(_) => return Err(GgufFileError::BadShape { name, dims }),
                None => None,
            };
            if type_size(ggml_type).is_some() && bytes.is_none() {
                return Err(GgufFileError::BadShape { name, dims });
            }
            if offset % alignment != 0 {
                return Err(GgufFileError::Misaligned {
                    name,
                    offset,
                    alignment,
                });
            }
            infos.push(GgufTensorInfo {
                name,
                dims,
                ggml_type,
                offset,
                bytes,
            });
        }

        // the data section starts at the next multiple of the alignment
        let data_start = r.at.div_ceil(alignment).saturating_mul(alignment);
        for t in &mut infos {
            let at = data_start.checked_add(t.offset);
            let end = at.zip(t.bytes).and_then(|(a, b)| a.checked_add(b));
            match (at, end) {
                (Some(at), Some(end)) if end <= len => t.offset = at,
                (Some(at), None) if t.bytes.is_none() && at <= len => t.offset = at,
                _ => {
                    return Err(GgufFileError::DataOutOfFile {
                        name: core::mem::take(&mut t.name),
                        at: data_start.saturating_add(t.offset),
                        bytes: t.bytes.unwrap_or(0),
                        len,
                    });
                }
            }
        }
        Ok(GgufReader {
            source,
            len,
            version,
            alignment,
            data_start,
            metadata: kept,
            tensors: infos,
        })
    }

    /// The format version (2 or 3).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The alignment of the tensor data (`general.alignment`, 32 unless set).
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// The byte position of the data section.
    pub fn data_start(&self) -> u64 {
        self.data_start
    }

    /// The metadata, in file order (empty when read with [`Metadata::Skip`]).
    pub fn metadata(&self) -> &[(String, GgufValue)] {
        &self.metadata
    }

    /// The metadata value of `key`.
    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The tensor infos, in file order.
    pub fn tensors(&self) -> &[GgufTensorInfo] {
        &self.tensors
    }

    /// The info of the tensor named `name`.
    pub fn tensor_info(&self, name: &str) -> Option<&GgufTensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// The underlying reader back.
    pub fn into_inner(self) -> R {
        self.source
    }

    /// The raw bytes of the tensor named `name` (any type whose size the reader knows).
    ///
    /// # Errors
    /// [`GgufFileError::NoTensor`]; [`GgufFileError::UnsupportedType`] for a type of unknown
    /// size; [`GgufFileError::Io`], or [`GgufFileError::Truncated`] when the file shrank.
    pub fn tensor_bytes(&mut self, name: &str) -> Result<Vec<u8>, GgufFileError> {
        let t = self
            .tensor_info(name)
            .ok_or_else(|| GgufFileError::NoTensor { name: name.into() })?;
        let Some(bytes) = t.bytes else {
            return Err(GgufFileError::UnsupportedType {
                name: name.into(),
                ggml_type: t.ggml_type,
            });
        };
        let at = t.offset;
        self.source
            .seek(SeekFrom::Start(at))
            .map_err(|e| GgufFileError::Io { kind: e.kind(), at })?;
        let mut r = Cursor {
            source: &mut self.source,
            at,
            len: self.len,
            keep: true,
        };
        // `at + bytes <= len` was checked against the file's length when it was opened
        r.bytes("tensor data", bytes)
    }

    /// The tensor named `name`, decoded: `F32` / `F16` as a row-major [`Tensor`] of the
    /// dimensions reversed, `Q4_0` / `Q8_0` as a [`GgufMatrix`](super::GgufMatrix) of
    /// `k = ne[0]` and `n` the product of the other dimensions.
    ///
    /// # Errors
    /// As [`GgufReader::tensor_bytes`]; [`GgufFileError::UnsupportedType`] for other types;
    /// [`GgufFileError::Packed`] for blocks of `k` not a multiple of 32.
    pub fn tensor(&mut self, name: &str) -> Result<GgufTensor, GgufFileError> {
        let t = self
            .tensor_info(name)
            .ok_or_else(|| GgufFileError::NoTensor { name: name.into() })?;
        let (ty, dims) = (t.ggml_type, t.dims.clone());
        if !matches!(ty, F32 | F16 | Q4_0 | Q8_0) {
            return Err(GgufFileError::UnsupportedType {
                name: name.into(),
                ggml_type: ty,
            });
        }
        let bytes = self.tensor_bytes(name)?;
        // the product of the dimensions fits i64 (checked when the header was read); on a
        // 32-bit target it may not fit `usize`
        let shape = dims
            .iter()
            .rev()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<Vec<usize>>>()
            .filter(|s| {
                s.iter()
                    .try_fold(1usize, |p, &d| p.checked_mul(d))
                    .is_some()
            })
            .ok_or_else(|| GgufFileError::BadShape {
                name: name.into(),
                dims: dims.clone(),
            })?;
        let (k, n) = match shape.split_last() {
            Some((&k, rest)) => (k, rest.iter().product()),
            None => (1, 1),
        };
        Ok(match ty {
            F32 => {
                let v = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                GgufTensor::F32(Tensor::from_vec(v, &shape)?)
            }
            F16 => {
                let v = bytes
                    .chunks_exact(2)
                    .map(|c| f16::from_le_bytes([c[0], c[1]]))
                    .collect();
                GgufTensor::F16(Tensor::from_vec(v, &shape)?)
            }
            Q4_0 => GgufTensor::Q4_0(Q4_0Matrix::from_bytes(k, n, &bytes)?),
            _ => GgufTensor::Q8_0(Q8_0Matrix::from_bytes(k, n, &bytes)?),
        })
    }
}

/// `count`, capped at the number of items of at least `min` bytes that `left` bytes can hold.
fn bounded(count: u64, left: u64, min: u64) -> usize {
    usize::try_from(count.min(left / min)).unwrap_or(0)
}

/// The (elements per block, bytes per block) of ggml type `t` (ggml's `ggml_type_traits`).
fn type_size(t: u32) -> Option<(u64, u64)> {
    Some(match t {
        0 => (1, 4),     // F32
        1 => (1, 2),     // F16
        2 => (32, 18),   // Q4_0
        3 => (32, 20),   // Q4_1
        6 => (32, 22),   // Q5_0
        7 => (32, 24),   // Q5_1
        8 => (32, 34),   // Q8_0
        9 => (32, 36),   // Q8_1
        10 => (256, 84), // Q2_K
        11 => (256, 110),
        12 => (256, 144),
        13 => (256, 176),
        14 => (256, 210),
        15 => (256, 292), // Q8_K
        24 => (1, 1),     // I8
        25 => (1, 2),     // I16
        26 => (1, 4),     // I32
        27 => (1, 8),     // I64
        28 => (1, 8),     // F64
        30 => (1, 2),     // BF16
        _ => return None,
    })
}

/// A position in the file, every read checked against its length first.
struct Cursor<'a, R> {
    source: &'a mut R,
    at: u64,
    len: u64,
    /// Whether the metadata value being read is kept (arrays read it).
    keep: bool,
}

impl<R: Read> Cursor<'_, R> {
    fn left(&self) -> u64 {
        self.len.saturating_sub(self.at)
    }

    /// `needed` bytes, refused before reading (and allocating) when the file has fewer.
    fn check(&self, what: &'static str, needed: u64) -> Result<(), GgufFileError> {
        if needed > self.left() {
            return Err(GgufFileError::Truncated {
                what,
                at: self.at,
                needed,
                left: self.left(),
            });
        }
        Ok(())
    }

    fn read_into(&mut self, what: &'static str, buf: &mut [u8]) -> Result<(), GgufFileError> {
        let at = self.at;
        self.source.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => GgufFileError::Truncated {
                what,
                at,
                needed: buf.len() as u64,
                left: self.len.saturating_sub(at),
            },
            kind => GgufFileError::Io { kind, at },
        })?;
        self.at += buf.len() as u64;
        Ok(())
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GgufFileError> {
        self.check(what, N as u64)?;
        let mut b = [0; N];
        self.read_into(what, &mut b)?;
        Ok(b)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, GgufFileError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, GgufFileError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// `n` bytes into a new vector (`n` checked against the file first).
    fn bytes(&mut self, what: &'static str, n: u64) -> Result<Vec<u8>, GgufFileError> {
        self.check(what, n)?;
        // `n <= left <= len`, the length of a file that exists; still, never abort
        let n = usize::try_from(n).map_err(|_| GgufFileError::Truncated {
            what,
            at: self.at,
            needed: n,
            left: self.left(),
        })?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| GgufFileError::Io {
            kind: io::ErrorKind::OutOfMemory,
            at: self.at,
        })?;
        v.resize(n, 0);
        self.read_into(what, &mut v)?;
        Ok(v)
    }

    fn string(&mut self, what: &'static str) -> Result<String, GgufFileError> {
        let at = self.at;
        let n = self.u64(what)?;
        let b = self.bytes(what, n)?;
        String::from_utf8(b).map_err(|_| GgufFileError::NotUtf8 { at })
    }

    /// Skip `n` bytes (checked against the file; read, so any `Read` works).
    fn skip(&mut self, what: &'static str, n: u64) -> Result<(), GgufFileError> {
        self.check(what, n)?;
        let at = self.at;
        let got = io::copy(&mut (&mut *self.source).take(n), &mut io::sink())
            .map_err(|e| GgufFileError::Io { kind: e.kind(), at })?;
        if got != n {
            return Err(GgufFileError::Truncated {
                what,
                at,
                needed: n,
                left: got,
            });
        }
        self.at += n;
        Ok(())
    }

    /// A metadata value of type `ty` (read at `ty_at`): `Some` when `keep`, checked and
    /// skipped otherwise.
    fn value(
        &mut self,
        ty: u32,
        ty_at: u64,
        keep: bool,
        depth: u32,
    ) -> Result<Option<GgufValue>, GgufFileError> {
        const WHAT: &str = "metadata value";
        let fixed = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            10..=12 => 8,
            8 | 9 => 0,
            _ => {
                return Err(GgufFileError::BadValueType {
                    value_type: ty,
                    at: ty_at,
                });
            }
        };
        if !keep && fixed > 0 {
            self.skip(WHAT, fixed)?;
            return Ok(None);
        }
        if ty == 9 {
            self.keep = keep;
            return Ok(self.array_value(depth)?.map(GgufValue::Array));
        }
        Ok(Some(match ty {
            0 => GgufValue::U8(self.array::<1>(WHAT)?[0]),
            1 => GgufValue::I8(i8::from_le_bytes(self.array(WHAT)?)),
            2 => GgufValue::U16(u16::from_le_bytes(self.array(WHAT)?)),
            3 => GgufValue::I16(i16::from_le_bytes(self.array(WHAT)?)),
            4 => GgufValue::U32(self.u32(WHAT)?),
            5 => GgufValue::I32(i32::from_le_bytes(self.array(WHAT)?)),
            6 => GgufValue::F32(f32::from_le_bytes(self.array(WHAT)?)),
            7 => GgufValue::Bool(self.array::<1>(WHAT)?[0] != 0),
            8 if keep => GgufValue::String(self.string(WHAT)?),
            8 => {
                let n = self.u64(WHAT)?;
                self.skip(WHAT, n)?;
                return Ok(None);
            }
            10 => GgufValue::U64(self.u64(WHAT)?),
            11 => GgufValue::I64(i64::from_le_bytes(self.array(WHAT)?)),
            _ => GgufValue::F64(f64::from_le_bytes(self.array(WHAT)?)),
        }))
    }

    /// An array value (element type, length, elements), typed; `None` when skipped (`keep`
    /// false, the bytes checked and read past).
    fn array_value(&mut self, depth: u32) -> Result<Option<GgufArray>, GgufFileError> {
        const WHAT: &str = "array";
        let elem_at = self.at;
        if depth >= MAX_ARRAY_DEPTH {
            return Err(GgufFileError::TooDeep { at: elem_at });
        }
        let elem = self.u32("array element type")?;
        let n = self.u64("array length")?;
        // the bytes each element takes at least (a string its length, an array its header)
        let (min, fixed) = match elem {
            0 | 1 | 7 => (1, true),
            2 | 3 => (2, true),
            4..=6 => (4, true),
            10..=12 => (8, true),
            8 => (8, false),
            9 => (12, false),
            _ => {
                return Err(GgufFileError::BadValueType {
                    value_type: elem,
                    at: elem_at,
                });
            }
        };
        self.check(WHAT, n.saturating_mul(min))?;
        if fixed {
            // one read of the checked `n·min` bytes, converted: no more than twice the bytes
            let total = n * min;
            if !self.keep {
                self.skip(WHAT, total)?;
                return Ok(None);
            }
            let b = self.bytes(WHAT, total)?;
            return Ok(Some(typed_array(elem, &b)));
        }
        if elem == 8 {
            let mut v = Vec::with_capacity(if self.keep {
                bounded(n, self.left(), 8)
            } else {
                0
            });
            for _ in 0..n {
                if self.keep {
                    v.push(self.string(WHAT)?);
                } else {
                    let len = self.u64(WHAT)?;
                    self.skip(WHAT, len)?;
                }
            }
            return Ok(self.keep.then_some(GgufArray::String(v)));
        }
        let mut v = Vec::with_capacity(if self.keep {
            bounded(n, self.left(), 12)
        } else {
            0
        });
        for _ in 0..n {
            if let Some(a) = self.array_value(depth + 1)? {
                v.push(a);
            }
        }
        Ok(self.keep.then_some(GgufArray::Array(v)))
    }
}

/// `N` bytes of a chunk of exactly `N` (from `chunks_exact(N)`).
fn le<const N: usize>(c: &[u8]) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(c);
    a
}

/// The elements of a fixed-size element type `elem`, from their little-endian bytes.
fn typed_array(elem: u32, b: &[u8]) -> GgufArray {
    macro_rules! typed {
        ($v:ident, $t:ty) => {
            GgufArray::$v(
                b.chunks_exact(size_of::<$t>())
                    .map(|c| <$t>::from_le_bytes(le(c)))
                    .collect(),
            )
        };
    }
    match elem {
        0 => GgufArray::U8(b.to_vec()),
        1 => typed!(I8, i8),
        2 => typed!(U16, u16),
        3 => typed!(I16, i16),
        4 => typed!(U32, u32),
        5 => typed!(I32, i32),
        6 => typed!(F32, f32),
        7 => GgufArray::Bool(b.iter().map(|&x| x != 0).collect()),
        10 => typed!(U64, u64),
        11 => typed!(I64, i64),
        _ => typed!(F64, f64),
    }
}
