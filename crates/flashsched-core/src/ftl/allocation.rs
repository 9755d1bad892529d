//! Plane allocation: which plane a logical page is written to.
//!
//! Static schemes stripe consecutive logical pages over channel (C), way/chip
//! (W), die (D) and plane (P) in the order given, first letter fastest — the
//! CWDP… family of MQSim and SSDsim's static allocation. `dynamic` lets the
//! device pick the least-loaded plane when the write arrives;
//! `dynamic:idle-chip` leaves a host write unplaced until a chip with
//! nothing else to do takes it (SSDsim's fully dynamic allocation).

use crate::error::{SimError, SimResult};
use crate::flash::Geometry;

/// Allocation scheme; in a config, `static:CWDP` (any order) or `dynamic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Allocation {
    /// Static striping.
    Static {
        /// `order[i]` is the unit (0 = C, 1 = W, 2 = D, 3 = P) varying i-th
        /// fastest.
        order: [u8; 4],
    },
    /// Least-loaded die (ties round-robin), decided when the write arrives.
    Dynamic,
    /// Host writes wait in one device-wide queue, oldest first, until a
    /// chip with nothing else it can start takes as many as one command
    /// can hold (SSDsim's `allocation = 0`, `dynamic_allocation = 0`: its
    /// `ssd->subs_w_head`, served by `services_2_write` on an idle chip).
    /// Other programs (mapping write-backs, MQSim's cache) are placed as
    /// under `Dynamic`.
    DynamicIdleChip,
}

impl TryFrom<String> for Allocation {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Allocation::parse(&s).map_err(|e| match *e {
            SimError::Config { msg, .. } => msg,
            other => other.to_string(),
        })
    }
}

impl From<Allocation> for String {
    fn from(a: Allocation) -> String {
        match a {
            Allocation::Dynamic => "dynamic".into(),
            Allocation::DynamicIdleChip => "dynamic:idle-chip".into(),
            Allocation::Static { order } => {
                let letters: String = order.iter().map(|&u| b"CWDP"[u as usize] as char).collect();
                format!("static:{letters}")
            }
        }
    }
}

impl Allocation {
    /// `dynamic`, `dynamic:idle-chip` or `static:` and a permutation of
    /// C, W, D, P; errors name
    /// `ftl.allocation`.
    pub fn parse(s: &str) -> SimResult<Allocation> {
        if s == "dynamic" {
            return Ok(Allocation::Dynamic);
        }
        if s == "dynamic:idle-chip" {
            return Ok(Allocation::DynamicIdleChip);
        }
        let bad = || {
            SimError::config(
                "ftl.allocation",
                format!("`{s}` is not `dynamic`, `dynamic:idle-chip` or `static:` followed by a permutation of C, W, D, P (e.g. static:CWDP)"),
            )
        };
        let letters = s.strip_prefix("static:").ok_or_else(bad)?;
        if letters.len() != 4 {
            return Err(bad());
        }
        let mut order = [0u8; 4];
        let mut seen = [false; 4];
        for (i, ch) in letters.chars().enumerate() {
            let u = match ch.to_ascii_uppercase() {
                'C' => 0,
                'W' => 1,
                'D' => 2,
                'P' => 3,
                _ => return Err(bad()),
            };
            if seen[u as usize] {
                return Err(bad());
            }
            seen[u as usize] = true;
            order[i] = u;
        }
        Ok(Allocation::Static { order })
    }

    /// Whether planes are chosen at run time (either dynamic scheme).
    #[inline]
    pub fn is_dynamic(&self) -> bool {
        !matches!(self, Allocation::Static { .. })
    }

    /// Plane of `lpn` under a static scheme (dynamic falls back to CWDP, used
    /// for pages placed before the trace began).
    #[inline]
    pub fn static_plane(&self, g: &Geometry, lpn: u32) -> u32 {
        let order = match self {
            Allocation::Static { order } => *order,
            Allocation::Dynamic | Allocation::DynamicIdleChip => [0, 1, 2, 3],
        };
        let sizes = [
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
        ];
        let mut idx = [0u32; 4];
        let mut rest = lpn;
        for &u in &order {
            let n = sizes[u as usize];
            idx[u as usize] = rest % n;
            rest /= n;
        }
        g.plane_index(idx[0], idx[1], idx[2], idx[3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geometry {
        Geometry::with_dims(2, 2, 2, 2, 4, 4, 4096)
    }

    #[test]
    fn cwdp_varies_channel_fastest() {
        let a = Allocation::parse("static:CWDP").unwrap();
        let g = g();
        assert_eq!(a.static_plane(&g, 0), g.plane_index(0, 0, 0, 0));
        assert_eq!(a.static_plane(&g, 1), g.plane_index(1, 0, 0, 0));
        assert_eq!(a.static_plane(&g, 2), g.plane_index(0, 1, 0, 0));
        assert_eq!(a.static_plane(&g, 4), g.plane_index(0, 0, 1, 0));
        assert_eq!(a.static_plane(&g, 8), g.plane_index(0, 0, 0, 1));
        assert_eq!(a.static_plane(&g, 16), g.plane_index(0, 0, 0, 0));
    }

    #[test]
    fn pwdc_varies_plane_fastest() {
        let a = Allocation::parse("static:pwdc").unwrap();
        let g = g();
        assert_eq!(a.static_plane(&g, 1), g.plane_index(0, 0, 0, 1));
        assert_eq!(a.static_plane(&g, 2), g.plane_index(0, 1, 0, 0));
        assert_eq!(a.static_plane(&g, 8), g.plane_index(1, 0, 0, 0));
    }

    #[test]
    fn rejects_bad_schemes() {
        for s in ["static:CWD", "static:CWDD", "CWDP", "static:XWDP"] {
            let e = Allocation::parse(s).unwrap_err().to_string();
            assert!(e.contains("ftl.allocation"), "{e}");
        }
        assert_eq!(Allocation::parse("dynamic").unwrap(), Allocation::Dynamic);
        let idle = Allocation::parse("dynamic:idle-chip").unwrap();
        assert_eq!(String::from(idle), "dynamic:idle-chip");
    }
}
