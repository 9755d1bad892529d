//! The column-mapping syntax users write: the `csv:`/`ws:` text given as the
//! format (`csv:time=0:ms,op=3:R/W,offset=4:B,size=5:B,skip=1`) and its TOML
//! equivalent, a `.toml` file given as the format:
//!
//! ```toml
//! sep = "comma"            # comma, semicolon, tab, pipe or ws (default comma)
//! skip = 1                 # header lines
//! fields = 6               # exact field count (optional)
//! time = { column = 0, unit = "ms" }
//! op = { column = 3, read = "R", write = "W", trim = "D" }  # words or lists of words
//! offset = { column = 4, unit = "B" }
//! size = { column = 5, unit = "sector" }
//! stream = { column = 2 }  # optional
//! ```
//!
//! Both fill one [`Draft`]; `finish` checks what every mapping needs (the
//! four required columns with units, no column used twice, a field count
//! wide enough), so the two spellings cannot drift apart.

use std::path::Path;

use super::columns::{byte_unit, time_unit, Column, ColumnMap, OpWords, Sep};
use crate::error::{SimError, SimResult};

/// Keys of the text syntax.
const KEYS: &str = "time, op, offset, size, stream, skip, sep, fields";

/// A mapping being assembled; messages are without their context.
#[derive(Default)]
struct Draft {
    sep: Option<Sep>,
    time: Option<(usize, u32)>,
    op: Option<(usize, OpWords)>,
    offset: Option<(usize, u64)>,
    size: Option<(usize, u64)>,
    stream: Option<usize>,
    skip: u64,
    fields: Option<usize>,
}

fn column(key: &str, v: i64) -> Result<usize, String> {
    usize::try_from(v)
        .ok()
        .filter(|&c| c < 4096)
        .ok_or_else(|| format!("`{key}`: expected a column number from 0, got `{v}`"))
}

fn column_text(key: &str, v: &str) -> Result<usize, String> {
    v.parse::<i64>()
        .map_err(|_| format!("`{key}`: expected a column number from 0, got `{v}`"))
        .and_then(|c| column(key, c))
}

fn time_scale(u: &str) -> Result<u32, String> {
    time_unit(u).ok_or_else(|| format!("time unit `{u}`: expected s, ms, us, 100ns or ns"))
}

fn bytes_per_unit(key: &str, u: &str) -> Result<u64, String> {
    byte_unit(u).ok_or_else(|| {
        format!("{key} unit `{u}`: expected B, sector (512 B), KiB, MiB or a number of bytes")
    })
}

fn separator(value: &str) -> Result<Sep, String> {
    Ok(match value {
        "comma" | "," => Sep::Char(b','),
        "semicolon" | ";" => Sep::Char(b';'),
        "tab" => Sep::Char(b'\t'),
        "pipe" | "|" => Sep::Char(b'|'),
        "ws" | "space" | "whitespace" => Sep::Whitespace,
        _ => {
            return Err(format!(
                "`sep`: expected comma, semicolon, tab, pipe or ws, got `{value}`"
            ))
        }
    })
}

/// Read, write and trim words; no word may mean two operations.
fn op_words(read: Vec<String>, write: Vec<String>, trim: Vec<String>) -> Result<OpWords, String> {
    let all: Vec<String> = read
        .iter()
        .chain(&write)
        .chain(&trim)
        .map(|s| s.to_ascii_lowercase())
        .collect();
    if read.is_empty() || write.is_empty() || all.iter().any(String::is_empty) {
        return Err("op words: a read word and a write word are required, none empty".into());
    }
    if let Some(i) = (1..all.len()).find(|&i| all[..i].contains(&all[i])) {
        return Err(format!("op words repeat the word `{}`", all[i]));
    }
    Ok(OpWords {
        read,
        write,
        trim,
        dropped: Vec::new(),
    })
}

impl Draft {
    /// The checked mapping.
    fn finish(self, default_sep: Sep) -> Result<ColumnMap, String> {
        let missing =
            |what: &str, example: &str| format!("`{what}` is required, e.g. {what}={example}");
        let (time, time_scale) = self.time.ok_or_else(|| missing("time", "0:s"))?;
        let (op, op_words) = self.op.ok_or_else(|| missing("op", "3:R/W"))?;
        let (offset, offset_unit) = self.offset.ok_or_else(|| missing("offset", "4:B"))?;
        let (size, size_unit) = self.size.ok_or_else(|| missing("size", "5:B"))?;
        let mut used = vec![
            ("time", time),
            ("op", op),
            ("offset", offset),
            ("size", size),
        ];
        if let Some(s) = self.stream {
            used.push(("stream", s));
        }
        for (i, (a, ca)) in used.iter().enumerate() {
            if let Some((b, _)) = used[..i].iter().find(|(_, cb)| cb == ca) {
                return Err(format!("`{b}` and `{a}` are both column {ca}"));
            }
        }
        let widest = used.iter().map(|(_, c)| c + 1).max().unwrap_or(1);
        if let Some(n) = self.fields {
            if n < widest {
                return Err(format!(
                    "`fields={n}` is fewer than the {widest} columns the mapping uses"
                ));
            }
        }
        let named = |index, name| Column { index, name };
        let mut map = ColumnMap {
            sep: self.sep.unwrap_or(default_sep),
            time: named(time, "time"),
            time_scale,
            op: named(op, "op"),
            op_words,
            offset: named(offset, "offset"),
            offset_unit,
            size: named(size, "size"),
            size_unit,
            stream: self.stream.map(|s| named(s, "stream")),
            skip: self.skip,
            min_fields: self.fields.unwrap_or(widest),
            max_fields: self.fields.unwrap_or(usize::MAX),
            header_row: false,
            zero_based: true,
            layout: String::new(),
        };
        map.layout = map.describe_columns();
        Ok(map)
    }
}

impl ColumnMap {
    /// Parse a generic mapping: `spec` is what follows `csv:` (comma
    /// separated by default) or `ws:` (whitespace).
    pub fn parse(spec: &str, default_sep: Sep) -> SimResult<ColumnMap> {
        parse_text(spec)
            .and_then(|d| d.finish(default_sep))
            .map_err(|msg| SimError::config("format", format!("column mapping: {msg}")))
    }

    /// Read a TOML mapping file (the format given as `NAME.toml`).
    pub fn load(path: &Path) -> SimResult<ColumnMap> {
        let text = std::fs::read_to_string(path).map_err(|source| SimError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        ColumnMap::from_toml(&text, &path.display().to_string())
    }

    /// Parse a TOML mapping; `origin` names it in messages.
    pub fn from_toml(text: &str, origin: &str) -> SimResult<ColumnMap> {
        let fail = |msg: String| {
            SimError::config("format", format!("column mapping file {origin}: {msg}"))
        };
        let table: toml::Table =
            toml::from_str(text).map_err(|e| fail(format!("invalid TOML: {}", e.message())))?;
        parse_toml(&table)
            .and_then(|d| d.finish(Sep::Char(b',')))
            .map_err(fail)
    }
}

fn parse_text(spec: &str) -> Result<Draft, String> {
    let mut d = Draft::default();
    let mut seen: Vec<&str> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            return Err(format!("`{item}` is not KEY=VALUE (keys: {KEYS})"));
        };
        let (key, value) = (key.trim(), value.trim());
        if seen.contains(&key) {
            return Err(format!("`{key}` is given twice"));
        }
        seen.push(key);
        let (c, unit) = match value.split_once(':') {
            Some((c, u)) => (c.trim(), Some(u.trim())),
            None => (value, None),
        };
        let need_unit =
            |what: &str| unit.ok_or_else(|| format!("`{key}` needs a unit: {key}=COL:{what}"));
        match key {
            "time" => {
                let scale = time_scale(need_unit("s|ms|us|100ns|ns")?)?;
                d.time = Some((column_text(key, c)?, scale));
            }
            "offset" => {
                let unit = bytes_per_unit(key, need_unit("B|sector|KiB|MiB|BYTES")?)?;
                d.offset = Some((column_text(key, c)?, unit));
            }
            "size" => {
                let unit = bytes_per_unit(key, need_unit("B|sector|KiB|MiB|BYTES")?)?;
                d.size = Some((column_text(key, c)?, unit));
            }
            "op" => {
                let words = need_unit("READ/WRITE[/TRIM]")?;
                let w: Vec<String> = words.split('/').map(|s| s.trim().to_string()).collect();
                if !(2..=3).contains(&w.len()) {
                    return Err(format!(
                        "op words `{words}`: expected READ/WRITE or READ/WRITE/TRIM, e.g. op=3:R/W"
                    ));
                }
                let trim = w.get(2).cloned().into_iter().collect();
                let words = op_words(vec![w[0].clone()], vec![w[1].clone()], trim)
                    .map_err(|e| format!("`{words}`: {e}"))?;
                d.op = Some((column_text(key, c)?, words));
            }
            "stream" => d.stream = Some(column_text(key, value)?),
            "skip" => {
                d.skip = value
                    .parse()
                    .map_err(|_| format!("`skip`: expected a number of lines, got `{value}`"))?
            }
            "fields" => {
                d.fields = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| {
                            format!("`fields`: expected a field count, got `{value}`")
                        })?,
                )
            }
            "sep" => d.sep = Some(separator(value)?),
            _ => return Err(format!("unknown key `{key}` (keys: {KEYS})")),
        }
    }
    Ok(d)
}

/// One TOML value, typed, with the dotted key in messages.
struct Entry<'a> {
    key: String,
    value: &'a toml::Value,
}

impl Entry<'_> {
    fn int(&self) -> Result<i64, String> {
        self.value
            .as_integer()
            .ok_or_else(|| format!("`{}`: expected an integer, got {}", self.key, self.value))
    }

    fn string(&self) -> Result<&str, String> {
        self.value
            .as_str()
            .ok_or_else(|| format!("`{}`: expected a string, got {}", self.key, self.value))
    }

    /// A word or a list of words.
    fn words(&self) -> Result<Vec<String>, String> {
        let bad = || {
            format!(
                "`{}`: expected a word or a list of words, got {}",
                self.key, self.value
            )
        };
        match self.value {
            toml::Value::String(s) => Ok(vec![s.clone()]),
            toml::Value::Array(a) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(bad))
                .collect(),
            _ => Err(bad()),
        }
    }

    /// A table with exactly the `allowed` keys (`required` among them).
    fn table(&self, allowed: &[&str], required: &[&str]) -> Result<Vec<(&str, Entry<'_>)>, String> {
        let t = self.value.as_table().ok_or_else(|| {
            format!(
                "`{}`: expected a table such as {{ {} }}, got {}",
                self.key,
                required
                    .iter()
                    .map(|k| format!("{k} = ..."))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.value
            )
        })?;
        for k in t.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(format!(
                    "unknown key `{}.{k}` (keys: {})",
                    self.key,
                    allowed.join(", ")
                ));
            }
        }
        for k in required {
            if !t.contains_key(*k) {
                return Err(format!("`{}.{k}` is required", self.key));
            }
        }
        Ok(t.iter()
            .map(|(k, v)| {
                let entry = Entry {
                    key: format!("{}.{k}", self.key),
                    value: v,
                };
                (k.as_str(), entry)
            })
            .collect())
    }

    fn column(&self) -> Result<usize, String> {
        column(&self.key, self.int()?)
    }
}

/// `{ column = N, unit = U }` (the unit as text or, for bytes, a number).
fn column_and_unit(e: &Entry<'_>) -> Result<(usize, String), String> {
    let (mut col, mut unit) = (0, String::new());
    for (k, v) in e.table(&["column", "unit"], &["column", "unit"])? {
        match k {
            "column" => col = v.column()?,
            _ => {
                unit = match v.value {
                    toml::Value::Integer(n) => n.to_string(),
                    _ => v.string()?.to_string(),
                }
            }
        }
    }
    Ok((col, unit))
}

fn parse_toml(table: &toml::Table) -> Result<Draft, String> {
    const TOP: [&str; 8] = [
        "sep", "skip", "fields", "time", "op", "offset", "size", "stream",
    ];
    let mut d = Draft::default();
    for (key, value) in table {
        let e = Entry {
            key: key.clone(),
            value,
        };
        match key.as_str() {
            "sep" => d.sep = Some(separator(e.string()?)?),
            "skip" => {
                d.skip = u64::try_from(e.int()?)
                    .map_err(|_| format!("`skip`: expected a number of lines, got {value}"))?
            }
            "fields" => {
                d.fields = Some(
                    usize::try_from(e.int()?)
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("`fields`: expected a field count, got {value}"))?,
                )
            }
            "time" => {
                let (c, u) = column_and_unit(&e)?;
                d.time = Some((c, time_scale(&u).map_err(|m| format!("`time.unit`: {m}"))?));
            }
            "offset" | "size" => {
                let (c, u) = column_and_unit(&e)?;
                let unit = bytes_per_unit(key, &u).map_err(|m| format!("`{key}.unit`: {m}"))?;
                if key == "offset" {
                    d.offset = Some((c, unit));
                } else {
                    d.size = Some((c, unit));
                }
            }
            "stream" => {
                d.stream = Some(match value {
                    toml::Value::Integer(_) => e.column()?,
                    _ => {
                        let t = e.table(&["column"], &["column"])?;
                        t[0].1.column()?
                    }
                })
            }
            "op" => {
                let (mut col, mut read, mut write, mut trim, mut drop) =
                    (0, Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for (k, v) in e.table(
                    &["column", "read", "write", "trim", "drop"],
                    &["column", "read", "write"],
                )? {
                    match k {
                        "column" => col = v.column()?,
                        "read" => read = v.words()?,
                        "write" => write = v.words()?,
                        "trim" => trim = v.words()?,
                        _ => drop = v.words()?,
                    }
                }
                let mut words = op_words(read, write, trim).map_err(|m| format!("`op`: {m}"))?;
                words.dropped = drop;
                d.op = Some((col, words));
            }
            _ => return Err(format!("unknown key `{key}` (keys: {})", TOP.join(", "))),
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(spec: &str) -> String {
        ColumnMap::parse(spec, Sep::Char(b','))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn mapping_round_trips_through_its_display() {
        for spec in [
            "csv:time=0:ms,op=3:R/W,offset=4:B,size=5:B,skip=1",
            "csv:time=2:100ns,op=0:read/write/trim,offset=1:sector,size=3:4096,stream=4,sep=semicolon,fields=6",
            "ws:time=0:us,op=1:1/0,offset=2:KiB,size=3:MiB",
        ] {
            let (prefix, rest) = spec.split_once(':').unwrap();
            let sep = if prefix == "ws" {
                Sep::Whitespace
            } else {
                Sep::Char(b',')
            };
            let m = ColumnMap::parse(rest, sep).unwrap();
            assert_eq!(m.to_string(), spec);
        }
    }

    #[test]
    fn bad_mappings_name_the_key() {
        for (spec, needle) in [
            (
                "time=0:ms,op=3:R/W,offset=4:B",
                "`size` is required, e.g. size=5:B",
            ),
            (
                "time=0,op=3:R/W,offset=4:B,size=5:B",
                "`time` needs a unit: time=COL:s|ms",
            ),
            ("time=0:min,op=3:R/W,offset=4:B,size=5:B", "time unit `min`"),
            ("time=0:s,op=3:R,offset=4:B,size=5:B", "op words `R`"),
            (
                "time=0:s,op=3:R/r,offset=4:B,size=5:B",
                "repeat the word `r`",
            ),
            ("time=0:s,op=3:R//,offset=4:B,size=5:B", "none empty"),
            (
                "time=0:s,op=3:R/W,offset=4:bytes,size=5:B",
                "offset unit `bytes`",
            ),
            (
                "time=0:s,op=3:R/W,offset=4:B,size=4:B",
                "`offset` and `size` are both column 4",
            ),
            (
                "time=x:s,op=3:R/W,offset=4:B,size=5:B",
                "`time`: expected a column number from 0, got `x`",
            ),
            (
                "time=-1:s,op=3:R/W,offset=4:B,size=5:B",
                "`time`: expected a column number from 0, got `-1`",
            ),
            (
                "time=0:s,op=3:R/W,offset=4:B,size=5:B,tiem=1",
                "unknown key `tiem`",
            ),
            ("time=0:s,time=1:s", "`time` is given twice"),
            (
                "time=0:s,op=3:R/W,offset=4:B,size=5:B,fields=3",
                "`fields=3` is fewer than the 6",
            ),
            (
                "time=0:s,op=3:R/W,offset=4:B,size=5:B,sep=x",
                "`sep`: expected comma",
            ),
            (
                "time=0:s,op=3:R/W,offset=4:B,size=5:B,skip=-1",
                "`skip`: expected a number",
            ),
            ("time", "`time` is not KEY=VALUE"),
        ] {
            let e = err(spec);
            assert!(
                e.starts_with("config key `format`: column mapping: "),
                "{e}"
            );
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }

    const TOML: &str = r#"
        sep = "semicolon"
        skip = 1
        fields = 6
        time = { column = 0, unit = "ms" }
        op = { column = 3, read = ["R", "Read"], write = "W", trim = "D", drop = [""] }
        offset = { column = 4, unit = "B" }
        size = { column = 5, unit = 4096 }
        [stream]
        column = 2
    "#;

    #[test]
    fn toml_mapping_is_the_text_mapping() {
        let m = ColumnMap::from_toml(TOML, "m.toml").unwrap();
        let text = ColumnMap::parse(
            "time=0:ms,op=3:R/W/D,offset=4:B,size=5:4096,stream=2,skip=1,sep=semicolon,fields=6",
            Sep::Char(b','),
        )
        .unwrap();
        // The same but for the extra words.
        assert_eq!(m.to_string(), text.to_string());
        assert_eq!(m.op_words.read, ["R", "Read"]);
        assert_eq!(m.op_words.dropped, [""]);
        assert_eq!((m.size_unit, m.skip, m.max_fields), (4096, 1, 6));
        // `stream = 2` is short for the table.
        let short = TOML.replace("[stream]\n        column = 2", "");
        let short = format!("stream = 2\n{short}");
        assert_eq!(
            ColumnMap::from_toml(&short, "m.toml").unwrap().to_string(),
            m.to_string()
        );
    }

    #[test]
    fn bad_toml_mappings_name_the_file_and_key() {
        for (change, needle) in [
            (
                ("unit = \"ms\"", "unit = \"min\""),
                "`time.unit`: time unit `min`",
            ),
            (
                ("column = 0", "column = -2"),
                "`time.column`: expected a column number from 0, got `-2`",
            ),
            (
                ("column = 0", "colum = 0"),
                "unknown key `time.colum` (keys: column, unit)",
            ),
            (("unit = 4096", "unit = 0"), "`size.unit`: size unit `0`"),
            (
                ("write = \"W\"", "write = 7"),
                "`op.write`: expected a word or a list of words",
            ),
            (
                ("write = \"W\"", "write = \"r\""),
                "`op`: op words repeat the word `r`",
            ),
            (
                ("skip = 1", "skip = \"one\""),
                "`skip`: expected an integer",
            ),
            (("skip = 1", "skpi = 1"), "unknown key `skpi`"),
            (
                ("size = { column = 5, unit = 4096 }", ""),
                "`size` is required",
            ),
            (
                ("offset = { column = 4, unit = \"B\" }", "offset = 4"),
                "`offset`: expected a table such as { column = ..., unit = ... }",
            ),
            (("fields = 6", "fields = 6 6"), "invalid TOML"),
        ] {
            let text = TOML.replace(change.0, change.1);
            assert_ne!(text, TOML, "{change:?}");
            let e = ColumnMap::from_toml(&text, "m.toml")
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("config key `format`: column mapping file m.toml: "),
                "{e}"
            );
            assert!(e.contains(needle), "{change:?}: {e}");
        }
    }

    #[test]
    fn toml_mapping_is_loaded_from_its_file() {
        let dir = std::env::temp_dir().join(format!("flashsched-mapping-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("map.toml");
        std::fs::write(&p, TOML).unwrap();
        assert_eq!(ColumnMap::load(&p).unwrap().time.index, 0);
        let e = ColumnMap::load(&dir.join("none.toml")).unwrap_err();
        assert!(matches!(*e, SimError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
