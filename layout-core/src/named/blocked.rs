//! Blocked and interleaved layouts (oneDNN, Ascend NC1HWC0, CUTLASS 2.x).
