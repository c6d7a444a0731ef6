//! The run's report: the free-block timeline sampled during the run, and at the end the
//! latency percentiles and CDFs, flash counts, wait causes, the slowest requests, and the
//! configuration, gathered into a `RunReport`.
//!
//! Does not do: formatting (report/ and the CLI), the latency recorders (stats/).

use super::Simulation;
use crate::sim::requests::WAIT_CAUSES;
use crate::stats::tail::TAIL_KEEP;
use crate::stats::{self, FlashCounts, FreeBlocksSample, IntegrityReport, RunCost, RunReport, TailClass, TailKeeper, TailReport, Throughput, WaitBreakdown};
use crate::units::{Nanos, PlaneId};
use std::collections::BTreeMap;

impl Simulation {
    pub(super) fn sample_free(&mut self) {
        let mut total = 0u64;
        let mut min = u64::MAX;
        for p in 0..self.ftl.geo.planes() {
            let f = self.ftl.free_blocks(PlaneId(p)) as u64;
            total += f;
            min = min.min(f);
        }
        self.free_samples.push(FreeBlocksSample { time_ns: self.now.0, total_free_blocks: total, min_plane_free_blocks: min });
        if self.free_samples.len() >= 2000 {
            // Keep the timeline bounded: drop every other sample, sample half as often.
            let kept: Vec<FreeBlocksSample> = self.free_samples.iter().step_by(2).cloned().collect();
            self.free_samples = kept;
            self.sample_every *= 2;
        }
        self.next_sample = self.now.0 + self.sample_every;
    }

    pub(super) fn report(mut self, wall: f64, workload: String, notes: Vec<(String, String)>) -> RunReport {
        self.sample_free();
        let [(reads, cdf_reads), (writes, cdf_writes), (all, cdf_all)] =
            stats::latency::finish_three(std::mem::take(&mut self.reads), std::mem::take(&mut self.writes), self.all.take());
        let c = &self.c;
        let programmed = c.host_pages_programmed + c.gc_pages_programmed + c.parity_pages_programmed;
        let mut extra = BTreeMap::new();
        extra.insert("unwritten_reads".into(), c.unwritten_reads);
        extra.insert("host_page_reads".into(), c.host_page_reads);
        extra.insert("stalled_writes".into(), c.stalled_writes);
        extra.insert("held_writes".into(), c.held_writes);
        extra.insert("channel_busy_gc_ns".into(), c.chan_ns[1]);
        extra.insert("channel_busy_user_ns".into(), c.chan_ns[0]);
        if self.ftl.geo.bits_per_cell > 1 {
            // Where the pages sit on the word-lines sets what GC costs (WLA-GC).
            extra.insert("gc_read_ns".into(), c.gc_array_ns[0]);
            extra.insert("gc_program_ns".into(), c.gc_array_ns[1]);
            extra.insert("gc_move_ns_per_victim".into(), (c.gc_array_ns[0] + c.gc_array_ns[1]).checked_div(c.erases).unwrap_or(0));
        }
        if self.rain.is_some() {
            extra.insert("gtr_rebuilt_reads".into(), c.rebuilt_reads);
            extra.insert("gtr_extra_page_reads".into(), c.rebuild_extra_reads);
            extra.insert("gtr_shared_member_reads".into(), self.gtr.shared_reads);
            extra.insert("gtr_joined_rebuilds".into(), self.gtr.joined);
            extra.insert("gtr_rebuilt_at_gc_start".into(), self.gtr.at_gc_start);
            extra.insert("gtr_rebuilt_beside_gc".into(), self.gtr.beside_gc);
            extra.insert("max_gc_planes_per_group".into(), c.max_gc_planes_per_group);
        }
        match &self.mesh {
            Some(m) => m.report(&mut extra),
            None => {
                extra.insert("bus_transfers".into(), c.bus_transfers);
                extra.insert("bus_first_try_transfers".into(), c.bus_transfers - c.bus_waits);
            }
        }
        self.gc_sched_report(&mut extra);
        self.gc_hold_report(&mut extra);
        self.write_start_report(&mut extra);
        self.content_report(&mut extra);
        self.multi_plane_report(&mut extra);
        if let Some(d) = self.durable.as_ref().filter(|_| self.opts.power_loss_every > 0) {
            extra.insert("power_loss_audits".into(), d.audits);
            extra.insert("power_loss_unacked_pages".into(), d.unacked_lost);
            if self.content.is_some() {
                extra.insert("power_loss_shared_pages".into(), d.shared_recovered);
            }
        }
        if let Some(pc) = &self.cuts {
            extra.insert("power_cuts".into(), pc.cuts);
            extra.insert("power_cut_recovery_ns".into(), pc.recovery_ns);
            extra.insert("power_cut_reissued_requests".into(), pc.reissued);
            extra.insert("power_cut_unacked_pages".into(), pc.unacked_lost);
            extra.insert("power_cut_padded_pages".into(), pc.padded_pages);
            if self.rain.is_some() {
                extra.insert("power_cut_parity_rewrites".into(), pc.parity_rewrites);
                extra.insert("power_cut_parity_reads".into(), pc.parity_reads);
            }
            if self.flush.is_some() {
                extra.insert("power_cut_buffered_pages".into(), pc.buffered_kept);
            }
            if self.content.is_some() {
                extra.insert("power_cut_shared_pages".into(), pc.shared_pages);
                extra.insert("power_cut_copies_dropped".into(), pc.copies_dropped);
            }
        }
        let failures = self.failure_report(&mut extra);
        if let Some(fb) = &self.flush {
            extra.insert("flush_stripes".into(), fb.flushes);
            extra.insert("flush_steered_around_gc".into(), fb.flushes_steered);
            extra.insert("flush_rmw_reads".into(), fb.rmw_reads);
            extra.insert("flush_buffer_pages".into(), fb.cap as u64);
        }
        // Re-protected data pages finish as host-page programs (`reprotect`); they are the
        // failure's, not the host's.
        let host_programmed = c.host_pages_programmed - self.failures.as_ref().map_or(0, |f| f.reprotected_data);
        if let Some(f) = &self.failures {
            extra.insert("die_failure_reprotected_data_pages".into(), f.reprotected_data);
        }
        let flash = FlashCounts {
            host_pages_programmed: host_programmed,
            gc_pages_programmed: c.gc_pages_programmed,
            parity_pages_programmed: c.parity_pages_programmed,
            gc_pages_migrated: c.gc_pages_migrated,
            copybacks: c.copybacks,
            host_pages_read: c.host_pages_read,
            buffer_hits: c.buffer_hits,
            erases: c.erases,
            gc_runs: c.gc_runs,
            suspends: c.suspends,
            waf: if host_programmed == 0 { 0.0 } else { programmed as f64 / host_programmed as f64 },
            extra,
        };
        let n = c.requests_completed.max(1) as f64;
        let waits = WaitBreakdown {
            requests_waited_on_gc: c.waited_on_gc,
            share_waited_on_gc: c.waited_on_gc as f64 / n,
            reads_waited_on_gc: c.reads_waited_on_gc,
            share_reads_waited_on_gc: c.reads_waited_on_gc as f64 / (reads.count.max(1) as f64),
            wait_ns_by_cause: WAIT_CAUSES
                .iter()
                .zip(c.wait_ns.iter().copied().chain([self.cuts.as_ref().map_or(0, |pc| pc.wait_ns)]))
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        };
        let [tail_reads, tail_writes] = std::mem::take(&mut self.tail).map(TailKeeper::into_kept);
        let tail = TailReport {
            kept_per_class: TAIL_KEEP as u64,
            reads: TailClass::build(&tail_reads, &reads, TAIL_KEEP),
            writes: TailClass::build(&tail_writes, &writes, TAIL_KEEP),
        };
        let sim_time = self.now.0.saturating_sub(self.first_arrival.unwrap_or(Nanos::ZERO).0);
        let start = self.first_arrival.unwrap_or(Nanos::ZERO).0;
        let throughput = Throughput::new(
            self.closed.as_ref().map_or_else(|| "open loop".to_string(), |q| q.config().describe()),
            c.last_done.saturating_sub(start),
            c.bytes,
            [reads.count, writes.count],
            self.closed.as_ref().map_or(0, |q| q.host_wait_ns),
        );
        let mut workload_notes: BTreeMap<String, String> = notes.into_iter().collect();
        workload_notes.insert("requests_wrapped_into_capacity".into(), c.wrapped_requests.to_string());
        workload_notes.insert("arrivals_clamped_out_of_order".into(), c.clamped_arrivals.to_string());
        workload_notes.insert("logical_capacity_bytes".into(), self.dev.host_bytes().to_string());
        let config = serde_json::json!({
            "device": &self.dev,
            "scheme": { "name": &self.scheme_name, "victim": self.scheme.victim.name(), "copyback": self.scheme.copyback,
                        "rain": self.scheme.rain, "gc_tolerant_read": self.scheme.gc_tolerant_read,
                        "interconnect": self.scheme.interconnect.name() },
            "seed": self.opts.seed,
            "oracle": self.opts.oracle,
            "precondition": &self.precond,
            "host": match &self.opts.closed_loop {
                Some(cl) => serde_json::json!({ "mode": "closed_loop", "queue_depth": cl.queue_depth, "queues": cl.queues, "timing": cl.timing }),
                None => serde_json::json!({ "mode": "open_loop" }),
            },
        });
        let mut config = config;
        if let Some(f) = failures {
            config["failures"] = f;
        }
        RunReport {
            flashtail_version: env!("CARGO_PKG_VERSION").to_string(),
            scheme: self.scheme_name.clone(),
            device: self.dev.name.clone(),
            workload,
            workload_notes,
            seed: self.opts.seed,
            sim_time_ns: sim_time,
            reads,
            writes,
            all,
            cdf_reads,
            cdf_writes,
            cdf_all,
            throughput,
            flash,
            waits,
            tail,
            free_blocks: std::mem::take(&mut self.free_samples),
            integrity: IntegrityReport {
                oracle_enabled: self.oracle.enabled,
                reads_checked: self.oracle.checked,
                violations: self.oracle.violations,
                requests_submitted: c.requests_submitted,
                requests_completed: c.requests_completed,
            },
            cost: RunCost {
                wall_seconds: wall,
                precondition_seconds: self.precond_secs,
                peak_rss_bytes: stats::process::peak_rss_bytes(),
                events: c.events,
                simulated_requests_per_second: if wall > 0.0 { c.requests_completed as f64 / wall } else { 0.0 },
            },
            no_gc_in_window: false,
            scheme_details: self.scheme.gc.details(),
            config,
        }
    }
}
