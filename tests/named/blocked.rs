//! Blocked and interleaved layouts.
