//! placeholder
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use super::{HostCtx, HostScheduler, Pick};
use crate::config::DeviceConfig;
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct BfqParams {}
impl BfqParams { pub fn validate(&self) -> SimResult<()> { Ok(()) } }
pub struct Bfq { q: VecDeque<u32> }
impl Bfq { pub fn new(_c: &DeviceConfig) -> Self { Bfq { q: VecDeque::new() } } }
impl HostScheduler for Bfq {
    fn name(&self) -> &'static str { "bfq" }
    fn enqueue(&mut self, req: &HostRequest, _now: Ns) { self.q.push_back(req.id); }
    fn dispatch(&mut self, _ctx: &HostCtx, _m: &mut Vec<u32>) -> Option<Pick> { self.q.pop_front().map(Pick::Req) }
    fn len(&self) -> usize { self.q.len() }
}
