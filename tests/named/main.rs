//! Named layouts: Ascend fractal layouts against the worked offsets of the reference and the
//! pad → reshape → transpose recipe written out as loops; blocked and interleaved layouts
//! against their closed-form offset formulas; pictures parsed back as XML.

mod ascend;
mod banks;
mod blocked;
#[path = "../support/cases.rs"]
mod cases;
mod padded;
mod pictures;
mod spelled;
mod tensor_op;
