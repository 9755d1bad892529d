//! Per-request columns handed to numpy without a copy.

use std::sync::Arc;

use flashsched_core::metrics::csv::{self, CsvColumn};
use flashsched_core::metrics::{Metrics, Records, Second};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::guarded;

/// One per-request column handed to numpy without a copy: it holds the
/// core's shared column (whose contents never change once shared; see
/// `metrics::Column`) and describes it through numpy's array interface
/// (version 3), which also works under the stable ABI. `numpy.asarray`
/// gives a read-only array whose `base` keeps this object alive.
#[pyclass(module = "flashsched._core", frozen)]
pub(crate) struct Column {
    data: ColumnData,
}

/// What `Column.__reduce__` returns: the constructor and its arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (&'static str, Bound<'py, PyBytes>));

pub(crate) enum ColumnData {
    U64(Arc<Vec<u64>>),
    U32(Arc<Vec<u32>>),
    U8(Arc<Vec<u8>>),
    /// Derived columns (`us_since`).
    F64(Arc<Vec<f64>>),
}

impl Column {
    pub(crate) fn new(data: ColumnData) -> Column {
        Column { data }
    }

    /// (address, rows, numpy type string)
    fn raw(&self) -> (usize, usize, &'static str) {
        // The memory is in the host's byte order.
        let big = cfg!(target_endian = "big");
        match &self.data {
            ColumnData::U64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">u8" } else { "<u8" },
            ),
            ColumnData::U32(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">u4" } else { "<u4" },
            ),
            ColumnData::U8(v) => (v.as_ptr() as usize, v.len(), "|u1"),
            ColumnData::F64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">f8" } else { "<f8" },
            ),
        }
    }

    fn u64s(&self) -> Option<&[u64]> {
        match &self.data {
            ColumnData::U64(v) => Some(v),
            _ => None,
        }
    }
}

#[pymethods]
impl Column {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (addr, rows, typestr) = self.raw();
        let d = PyDict::new(py);
        d.set_item("shape", (rows,))?;
        d.set_item("typestr", typestr)?;
        d.set_item("data", (addr, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.raw().1
    }

    /// Row `i` (negative counts from the end); makes a column iterable.
    fn __getitem__<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyAny>> {
        let n = self.raw().1 as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(PyIndexError::new_err(format!(
                "row {i} of a {n}-row column"
            )));
        }
        let j = j as usize;
        Ok(match &self.data {
            ColumnData::U64(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::U32(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::U8(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::F64(v) => v[j].into_pyobject(py)?.into_any(),
        })
    }

    /// Pickle support: (Column._from_bytes, (type string, little-endian bytes)).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        // Pickled bytes are little-endian whatever the host.
        let (typestr, bytes) = match &slf.get().data {
            ColumnData::U64(v) => ("<u8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ColumnData::U32(v) => ("<u4", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ColumnData::U8(v) => ("|u1", v.to_vec()),
            ColumnData::F64(v) => ("<f8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        };
        let ctor = py.get_type::<Column>().getattr("_from_bytes")?;
        Ok((ctor, (typestr, PyBytes::new(py, &bytes))))
    }

    /// Rebuild a pickled column.
    #[staticmethod]
    fn _from_bytes(typestr: &str, data: &[u8]) -> PyResult<Column> {
        let bad =
            || PyValueError::new_err(format!("not a {typestr} column of {} bytes", data.len()));
        let data = match typestr {
            "<u8" if data.len().is_multiple_of(8) => ColumnData::U64(Arc::new(
                data.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            "<u4" if data.len().is_multiple_of(4) => ColumnData::U32(Arc::new(
                data.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            "|u1" => ColumnData::U8(Arc::new(data.to_vec())),
            "<f8" if data.len().is_multiple_of(8) => ColumnData::F64(Arc::new(
                data.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            _ => return Err(bad()),
        };
        Ok(Column::new(data))
    }
}

/// `(t - start) / 1000` row by row, as float64 microseconds, from two
/// nanosecond columns of equal length: the same values as numpy's
/// `np.subtract(t, start, dtype=float64) * 1e-3`, in plain memory (numpy
/// asks for huge pages for arrays this size, whose first touch costs several
/// times more on some kernels).
#[pyfunction]
pub(crate) fn us_since(t: &Column, start: &Column) -> PyResult<Column> {
    let (Some(t), Some(s)) = (t.u64s(), start.u64s()) else {
        return Err(PyValueError::new_err("us_since needs two uint64 columns"));
    };
    if t.len() != s.len() {
        return Err(PyValueError::new_err(format!(
            "us_since: columns of {} and {} rows",
            t.len(),
            s.len()
        )));
    }
    let out = t
        .iter()
        .zip(s)
        .map(|(&a, &b)| (a as f64 - b as f64) * 1e-3)
        .collect();
    Ok(Column::new(ColumnData::F64(Arc::new(out))))
}

/// A run's per-request columns, shared without a copy: {name: Column}.
pub(crate) fn records_dict<'py>(py: Python<'py>, m: &mut Metrics) -> PyResult<Bound<'py, PyDict>> {
    rows_dict(py, &mut m.records)
}

/// Per-request columns, shared without a copy: {name: Column}.
pub(crate) fn rows_dict<'py>(py: Python<'py>, r: &mut Records) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let u64s = [
        ("arrival_ns", &mut r.arrival),
        ("dispatch_ns", &mut r.dispatch),
        ("complete_ns", &mut r.complete),
    ];
    for (name, c) in u64s {
        d.set_item(name, Column::new(ColumnData::U64(c.share())))?;
    }
    d.set_item("op", Column::new(ColumnData::U8(r.op.share())))?;
    d.set_item("offset", Column::new(ColumnData::U64(r.offset.share())))?;
    d.set_item("size", Column::new(ColumnData::U32(r.size.share())))?;
    d.set_item("stream", Column::new(ColumnData::U32(r.stream.share())))?;
    Ok(d)
}

/// A run's per-second series over the seconds in which something
/// completed (idle seconds are absent; `second` says which second each row
/// is): {second, ios, reads, writes, bytes, mean_latency_us,
/// p99_latency_us}, each a Column (a run of years has millions of
/// seconds: as Python lists they took ~40 bytes a value).
pub(crate) fn timeseries_dict<'py>(py: Python<'py>, m: &Metrics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let secs = m.seconds.values();
    let u64s = |f: fn(&Second) -> u64| {
        Column::new(ColumnData::U64(Arc::new(secs.iter().map(f).collect())))
    };
    d.set_item(
        "second",
        Column::new(ColumnData::U64(Arc::new(m.seconds.bins().to_vec()))),
    )?;
    d.set_item("ios", u64s(|x| x.ios))?;
    d.set_item("reads", u64s(|x| x.reads))?;
    d.set_item("writes", u64s(|x| x.writes))?;
    d.set_item("bytes", u64s(|x| x.bytes))?;
    let mean = secs.iter().map(|x| {
        if x.ios == 0 {
            0.0
        } else {
            x.latency_sum_ns as f64 / x.ios as f64 / 1000.0
        }
    });
    d.set_item(
        "mean_latency_us",
        Column::new(ColumnData::F64(Arc::new(mean.collect()))),
    )?;
    let mut p99: Vec<f64> = m.p99_per_second().into_iter().map(|v| v / 1000.0).collect();
    p99.resize(secs.len(), f64::NAN);
    d.set_item(
        "p99_latency_us",
        Column::new(ColumnData::F64(Arc::new(p99))),
    )?;
    Ok(d)
}

/// A numeric table as CSV text, as pandas' `to_csv(index=False)` writes
/// it (`flashsched_core::metrics::csv`): `names` heads `columns`, each a
/// `(kind, data)` pair, `kind` `"<i8"` or `"<f8"` and `data` the column's
/// little-endian bytes (numpy's `tobytes()`).
#[pyfunction]
pub(crate) fn numeric_csv(
    names: Vec<String>,
    columns: Vec<(String, Bound<'_, PyBytes>)>,
) -> PyResult<String> {
    guarded(|| {
        let mut owned = Vec::with_capacity(columns.len());
        for (i, (kind, data)) in columns.iter().enumerate() {
            let bytes = data.as_bytes();
            if bytes.len() % 8 != 0 {
                return Err(PyValueError::new_err(format!(
                    "numeric_csv: column {i} has {} bytes, not a whole number of 8-byte values",
                    bytes.len()
                )));
            }
            let words = bytes.chunks_exact(8).map(|w| {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                b
            });
            owned.push(match kind.as_str() {
                "<i8" => Owned::Int(words.map(i64::from_le_bytes).collect()),
                "<f8" => Owned::Float(words.map(f64::from_le_bytes).collect()),
                other => {
                    return Err(PyValueError::new_err(format!(
                        "numeric_csv: column {i} has kind `{other}` (expected `<i8` or `<f8`)"
                    )))
                }
            });
        }
        let cols: Vec<CsvColumn> = owned
            .iter()
            .map(|c| match c {
                Owned::Int(v) => CsvColumn::Int(v),
                Owned::Float(v) => CsvColumn::Float(v),
            })
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        csv::numeric_csv(&names, &cols)
            .map_err(|e| PyValueError::new_err(format!("numeric_csv: {e}")))
    })
}

/// A column decoded from Python's bytes, borrowed as a [`CsvColumn`].
enum Owned {
    Int(Vec<i64>),
    Float(Vec<f64>),
}
