//! The tensor entries of the GEMM beyond two tensors (issue 32), one test binary: quantized
//! weights as B (`quant_tensors`) and a 16-bit C (`half_out`).

mod half_out;
mod quant_tensors;
