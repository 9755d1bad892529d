//! NAND flash model: geometry and addressing, operation timing, and the state
//! of dies and channel buses. A die runs one operation at a time; chips on a
//! channel share its bus (reads: tR on the die, then transfer out; writes:
//! transfer in, then tPROG).

pub mod channel;
pub mod die;
pub mod geometry;
pub mod timing;
pub mod variation;

pub use geometry::{Geometry, GeometryConfig, Ppn};
pub use timing::{Cell, CommandKind, Timing, TimingConfig};
pub use variation::VariationConfig;
