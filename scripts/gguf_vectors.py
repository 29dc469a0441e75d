#!/usr/bin/env python3
"""Reference vectors for the GGUF Q4_0 / Q8_0 blocks (dev-only; the vectors are committed).

Needs `pip install gguf numpy`. Writes, little-endian, into tests/data/ (and small.gguf, below):
  gguf_input_f32.bin     the f32 weights, N rows of K (GGUF's order: one output per row)
  gguf_q4_0.bin          gguf.quants.quantize(input, Q4_0): N·K/32 blocks of 18 bytes
  gguf_q8_0.bin          gguf.quants.quantize(input, Q8_0): N·K/32 blocks of 34 bytes
  gguf_q4_0_deq_f32.bin  gguf.quants.dequantize(q4_0 bytes) as f32, N rows of K
  gguf_q8_0_deq_f32.bin  gguf.quants.dequantize(q8_0 bytes) as f32, N rows of K
tests/quant_gguf.rs checks that layout's quantisers reproduce the bytes exactly and that its
dequantisation gives the same floats. Run from the repository root:
  python3 scripts/gguf_vectors.py
"""
import pathlib

import numpy as np
from gguf import GGMLQuantizationType
from gguf.quants import dequantize, quantize

K, N = 64, 8  # 2 blocks per row, 16 blocks
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"

rng = np.random.default_rng(20261125)
w = rng.standard_normal((N, K)).astype(np.float32)
# edge blocks (row r, block b = columns 32b..32b+32):
w[0, 32:64] = 0.0                                   # all zero: d = −0 (Q4_0), 0 (Q8_0)
w[1, 0:32] = rng.integers(-8, 8, 32) * 0.25         # exactly representable in Q4_0
w[1, 0] = -2.0                                      # … with −8·d in the block
w[1, 32:64] = rng.integers(-127, 128, 32) / 64.0    # exactly representable in Q8_0
w[1, 40] = 127 / 64.0
w[2, 0:32] *= 1e-6                                  # subnormal f16 scales
w[2, 32:64] *= 3e3                                  # large scales (Q4_0 d ≈ 1e3)
w[3, 0:32] = np.linspace(-1.0, 1.0, 32, dtype=np.float32)  # rounding ties
w[3, 5], w[3, 9] = 1.5, -1.5                        # equal magnitudes, opposite signs: first wins
w[4, 32:64] = rng.integers(-254, 255, 32) / 2.0     # Q8_0 halves (x·id near .5)
w[4, 33] = 127.0

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "gguf_input_f32.bin").write_bytes(w.astype("<f4").tobytes())
for name, qt in [("q4_0", GGMLQuantizationType.Q4_0), ("q8_0", GGMLQuantizationType.Q8_0)]:
    q = quantize(w, qt)
    (OUT / f"gguf_{name}.bin").write_bytes(q.tobytes())
    d = dequantize(q, qt).astype("<f4")
    (OUT / f"gguf_{name}_deq_f32.bin").write_bytes(d.tobytes())
    print(name, q.shape, q.nbytes, "bytes")

# A small .gguf file written by the `gguf` package's own writer (tests/data/small.gguf): the
# reader in layout-core/src/packed/gguf_file.rs is checked against it (tests/quant_gguf.rs).
# Alignment 64 (not the default 32), metadata of every scalar type, a string, arrays, and the
# four tensor types the reader decodes, from the vectors above.
from gguf import GGUFWriter, GGMLQuantizationType as T  # noqa: E402

gw = GGUFWriter(str(OUT / "small.gguf"), "test")
gw.add_custom_alignment(64)
gw.add_uint8("t.u8", 200)
gw.add_int8("t.i8", -100)
gw.add_uint16("t.u16", 60000)
gw.add_int16("t.i16", -30000)
gw.add_uint32("t.u32", 4000000000)
gw.add_int32("t.i32", -2000000000)
gw.add_float32("t.f32", 0.15625)
gw.add_bool("t.bool", True)
gw.add_string("t.str", "layout ✓")
gw.add_uint64("t.u64", 2**63 + 5)
gw.add_int64("t.i64", -(2**62))
gw.add_float64("t.f64", -2.5e-300)
gw.add_array("t.arr_i32", [1, -2, 3])
gw.add_array("t.arr_str", ["a", "", "ccc"])
gw.add_tensor("w.f32", w)                                        # dims [64, 8]
gw.add_tensor("w.f16", w[:4].astype(np.float16))                 # dims [64, 4]
gw.add_tensor("w.q4_0", quantize(w, T.Q4_0), raw_dtype=T.Q4_0)
gw.add_tensor("w.q8_0", quantize(w, T.Q8_0), raw_dtype=T.Q8_0)
gw.add_tensor("v.f32", np.arange(5, dtype=np.float32))           # dims [5]
gw.write_header_to_file()
gw.write_kv_data_to_file()
gw.write_tensors_to_file()
gw.close()
print("small.gguf", (OUT / "small.gguf").stat().st_size, "bytes")
