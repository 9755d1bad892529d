//! Check mode (`--check`, `RunOptions::check`, always on in the tests): a
//! streaming checker fed every data movement of a device as it happens
//! (the records of [`record`]), with compact state and no log.
//!
//! * [`oracle`]: every read returns the newest version written before it
//!   was issued, or newer; TRIMmed pages read as zeros (PAR/EAR hazards of
//!   out-of-order device schedulers, GC, the write buffer, TRIM).
//! * [`flash`]: the checker's own model of the flash contents; a page is
//!   programmed once per erase, in order within its block.
//! * [`invariants`]: periodic audits of the FTL against itself and against
//!   the model, block accounting, and the host-interface rules (each request
//!   completes exactly once, time is monotonic, queue depth respected).
//!
//! The first violation is kept and stops the run as a [`SimError::Invalid`]
//! naming the request, logical and physical page, and versions. With check
//! mode off the device pays one branch per record site and the simulation
//! loop one branch per event batch.

pub mod flash;
pub mod invariants;
pub mod oracle;
pub mod record;

use crate::error::SimError;
use crate::flash::Geometry;
use crate::ftl::Ftl;
use crate::io::Op;
use flash::FlashModel;
use oracle::Oracle;
use record::OpRecord;

/// Streaming checker of one device.
pub struct Checker {
    /// What every physical page holds, rebuilt from the records.
    pub flash: FlashModel,
    /// Which versions each read in flight may return.
    pub oracle: Oracle,
    /// Newest version programmed per hidden (translation) page; absent:
    /// only the copy stored before the run (version 0).
    hidden: rustc_hash::FxHashMap<u32, u32>,
    /// Host requests inside the device, by host slot: (op, offset, size).
    at_device: Vec<Option<(Op, u64, u32)>>,
    violation: Option<String>,
    /// Records consumed.
    pub records: u64,
    /// Full audits run (FTL tables and cross-check; O(pages) each).
    pub audits: u64,
    audit_every: u64,
    next_audit: u64,
}

impl Checker {
    /// Bytes a checker of `geo` with `logical_pages` allocates: the flash
    /// model and the oracle (reads and requests in flight aside).
    pub fn footprint(geo: &Geometry, logical_pages: u64) -> u64 {
        FlashModel::footprint(geo) + Oracle::footprint(logical_pages)
    }

    /// A checker starting from the FTL's current state (after preconditioning).
    pub fn new(ftl: &Ftl) -> Checker {
        let mapped = (0..ftl.logical_pages).filter(|&l| ftl.lookup(l).is_some());
        let oracle = Oracle::new(ftl.logical_pages, mapped);
        Checker::with(FlashModel::snapshot(ftl), oracle)
    }

    /// A checker for an erased device with nothing written (for hand-built
    /// record sequences).
    pub fn blank(geo: Geometry, logical_pages: u32) -> Checker {
        Checker::with(
            FlashModel::erased(geo),
            Oracle::new(logical_pages, std::iter::empty()),
        )
    }

    fn with(flash: FlashModel, oracle: Oracle) -> Checker {
        // An audit costs O(pages): run one per ~4 × pages records so audits
        // add a bounded fraction to the per-record cost.
        let every = (flash.geo.pages() * 4).max(1 << 16);
        Checker {
            flash,
            oracle,
            hidden: Default::default(),
            at_device: Vec::new(),
            violation: None,
            records: 0,
            audits: 0,
            audit_every: every,
            next_audit: every,
        }
    }

    /// Consume one record; the first violation is kept (later records are
    /// ignored: the state is no longer trustworthy).
    #[inline]
    pub fn record(&mut self, r: OpRecord) {
        if self.violation.is_some() {
            return;
        }
        self.records += 1;
        if let Err(m) = self.apply(r) {
            self.violation = Some(format!("{m} (record #{})", self.records));
        }
    }

    /// Feed a sequence; the first violation, if any.
    pub fn feed(&mut self, records: &[OpRecord]) -> Result<(), String> {
        for &r in records {
            self.record(r);
        }
        self.violation.clone().map_or(Ok(()), Err)
    }

    /// The first violation so far.
    pub fn violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    fn apply(&mut self, r: OpRecord) -> Result<(), String> {
        match r {
            OpRecord::Submit {
                req,
                op,
                offset,
                size,
            } => {
                let i = req as usize;
                if i >= self.at_device.len() {
                    self.at_device.resize(i + 1, None);
                }
                if let Some(prev) = self.at_device[i].replace((op, offset, size)) {
                    return Err(format!(
                        "request slot {req} submitted ({}) while still in the device ({})",
                        describe(Some((op, offset, size))),
                        describe(Some(prev))
                    ));
                }
                Ok(())
            }
            OpRecord::Complete { req } => {
                match self.at_device.get_mut(req as usize).and_then(Option::take) {
                    Some(_) => Ok(()),
                    None => Err(format!(
                        "request slot {req} completed but is not in the device (completed twice?)"
                    )),
                }
            }
            OpRecord::Write { lpn, seq } => self.oracle.write(lpn, seq),
            OpRecord::Trim { lpn } => self.oracle.trim(lpn),
            OpRecord::Read { id, lpn, req } => self.oracle.read(id, lpn, req),
            OpRecord::DramHit { id, lpn } => {
                let req = self.oracle.read_req(id);
                self.oracle
                    .dram_hit(id, lpn)
                    .map_err(|m| self.named(m, req))
            }
            OpRecord::Unmapped { id } => {
                let req = self.oracle.read_req(id);
                self.oracle.unmapped(id).map_err(|m| self.named(m, req))
            }
            OpRecord::Unplaced { id } => {
                let req = self.oracle.read_req(id);
                self.oracle.unplaced(id).map_err(|m| self.named(m, req))
            }
            OpRecord::Sense { id, ppn } => {
                let req = self.oracle.read_req(id);
                let content = self.flash.content(ppn);
                self.oracle
                    .sense(id, ppn, content)
                    .map_err(|m| self.named(m, req))
            }
            OpRecord::Program { ppn, lpn, seq } => {
                if seq > oracle::MAX_SEQ {
                    return Err(format!("version {seq} beyond what the oracle can order"));
                }
                self.flash.program(ppn, lpn, seq as u32)
            }
            OpRecord::HiddenProgram { ppn, lpn, seq } => {
                if seq > oracle::MAX_SEQ {
                    return Err(format!("version {seq} beyond what the oracle can order"));
                }
                if lpn < self.oracle.logical_pages() {
                    return Err(format!("translation page written as host page {lpn}"));
                }
                // The FTL maps the program that started with the newest version.
                let v = self.hidden.entry(lpn).or_default();
                *v = (*v).max(seq as u32);
                self.flash.program(ppn, lpn, seq as u32)
            }
            OpRecord::Skip { ppn } => self.flash.skip(ppn),
            OpRecord::ProgramDone { lpn, seq } => self.oracle.program_done(lpn, seq),
            OpRecord::GcCopy { from, to } => self.flash.copy(from, to),
            OpRecord::EraseStart { block } => self.flash.erase_start(block),
            OpRecord::Erase { block } => self.flash.erase_done(block),
        }
    }

    /// `m` followed by the request the read belongs to.
    fn named(&self, m: String, req: Option<u32>) -> String {
        match req {
            Some(r) => {
                let what = self.at_device.get(r as usize).copied().flatten();
                format!("{m}; request slot {r}: {}", describe(what))
            }
            None => m,
        }
    }

    /// Whether a periodic audit is due.
    #[inline]
    pub fn audit_due(&self) -> bool {
        self.records >= self.next_audit
    }

    /// Audit the FTL's tables and cross-check them with the model.
    pub fn audit(&mut self, ftl: &Ftl) -> Result<(), String> {
        self.next_audit = self.records + self.audit_every;
        self.audits += 1;
        ftl.check_invariants()?;
        invariants::cross_check(ftl, &self.flash, &self.oracle, &self.hidden)
    }

    /// End of run: no violation, no read or request left inside the
    /// device, and a final audit.
    pub fn finish(&mut self, ftl: &Ftl) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        if let Some((id, lpn, req)) = self.oracle.any_pending() {
            return Err(format!(
                "{} page reads never answered (e.g. read #{id} of lpn {lpn}, request slot {req})",
                self.oracle.pending()
            ));
        }
        if let Some((slot, r)) = self
            .at_device
            .iter()
            .enumerate()
            .find_map(|(i, r)| r.map(|r| (i, r)))
        {
            return Err(format!(
                "request slot {slot} ({}) never completed",
                describe(Some(r))
            ));
        }
        self.audit(ftl)
    }
}

fn describe(r: Option<(Op, u64, u32)>) -> String {
    match r {
        Some((op, offset, size)) => format!("{} of {size} B at offset {offset}", op.as_str()),
        None => "unknown request".into(),
    }
}

/// A violation as the error that stops the run.
pub fn error(at: crate::engine::Ns, what: &str, msg: &str) -> Box<SimError> {
    Box::new(SimError::Invalid(format!(
        "check failed at t={at} ns ({what}): {msg}"
    )))
}
