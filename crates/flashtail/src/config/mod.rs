//! Configuration: the device (geometry, timing, FTL, buffer, preconditioning) and its
//! presets. Loaded from TOML, overridable key by key (`ftl.over_provisioning=0.2`).
//!
//! Does not hold scheme settings: those live with the schemes (`gc::schemes`).

pub mod buffer;
pub mod device;
pub mod memory;
pub mod overrides;
pub mod presets;
pub mod scheduling;
pub mod ttflash;
pub use device::{Allocation, BufferConfig, DeviceConfig, FootprintFill, FtlConfig, MultiPlane, Precondition, RainParity, Spread, UnitOfExecution, UnwrittenReads, VictimsPerTrigger};
pub use scheduling::{GcHold, QueueOrder, SchedulerConfig, WriteStart};
pub use ttflash::{GtrCost, RotationRule, SeveralGc, TtflashConfig};
