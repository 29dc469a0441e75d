//! Walking layouts: the services every consumer of layouts shares.
//!
//! This layer sits between the layouts (and their algebra's inputs) and everything that reads
//! memory through a layout — tensors, copies, printing, GEMM packing:
//!
//! - [`AnyLayout`]: the interface those consumers accept (domain, size, 1-D offset, the affine
//!   `inner ∘ post` form, offset bounds, injectivity), implemented for [`DynLayout`](crate::DynLayout)
//!   and [`Layout`](crate::Layout) here, for swizzled and algebra-result layouts in their own modules;
//! - `Axes`: the top-level modes of a run-time layout, leaf range by leaf range;
//! - `Plan`: odometers over one layout or several in lock-step, refining the modes of several
//!   layouts to common extents (copies, element-wise operations, iteration, printing);
//! - `kernels`: the inner loops copies run on a plan's innermost modes (constant-length runs,
//!   8 × 8 micro-tiled transposes);
//! - `scan`: exact facts about offsets (bounds, collisions) decided in closed form where the
//!   structure allows and by a capped scan otherwise.
//!
//! Nothing here knows about tensors: the tensor layer and the GEMM drive these walks.

mod any;
mod axes;
pub(crate) mod kernels;
pub(crate) mod plan;
pub(crate) mod scan;

pub use any::{AnyLayout, PostPeriod};
pub(crate) use axes::Axes;
pub(crate) use plan::{Joint, Mode, Plan, PlanIter};
