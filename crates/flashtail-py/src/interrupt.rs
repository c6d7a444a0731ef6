//! Running library work with the GIL released while the calling thread watches for signals:
//! the work runs on a scoped thread; every 50 ms the caller takes the GIL back just long
//! enough for `check_signals`. On Ctrl-C it sets the job's cancel flag (the runs stop at
//! their next request), waits for the work to end and raises the signal's exception
//! (`KeyboardInterrupt`). Off the main thread (Ray's workers) `check_signals` never fires.

use flashtail::job::Cancel;
use pyo3::prelude::*;
use std::time::Duration;

/// Runs `work` without the GIL, stopping it through `cancel` on a signal.
pub fn interruptible<T: Send>(py: Python<'_>, cancel: &Cancel, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|s| {
            let handle = s.spawn(work);
            loop {
                if handle.is_finished() {
                    return handle.join().map_err(|_| crate::err("internal error: the simulation thread panicked"));
                }
                std::thread::sleep(Duration::from_millis(50));
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    cancel.cancel();
                    let _ = handle.join();
                    return Err(e);
                }
            }
        })
    })
}
