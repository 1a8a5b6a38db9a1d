//! Measured shapes as data (FFTW calls such knowledge wisdom): per GPU model,
//! the shape choices that `fftgen tune` or the bench measured to beat the
//! planner's heuristic at a size, each naming the logs that hold its timings.
//! The planner reads them; this crate embeds the files of `fftgen/wisdom/`;
//! a user adds a file of their own (`fftgen tune --write-wisdom FILE`) through
//! [`crate::FftSpec::wisdom`] or the environment variable [`WISDOM_ENV`].
//!
//! Seed 004 chooses radix schedules by measurement on the device; these files
//! are where such measurements land. An entry is for a whole transform of
//! its size, or (`"pass": "column"`) for every column pass of that length
//! inside plans of several passes (seed 000 IV.A's column FFTs), whose best
//! block shape differs between GPUs of the same limits.

use super::choices::ShapeChoices;
use crate::{Error, Precision, Target};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable naming a wisdom file that the planner consults
/// before the built-in ones, when a spec names none.
pub const WISDOM_ENV: &str = "FFTGEN_WISDOM";

/// The built-in files, fallback last.
const BUILT_IN: [(&str, &str); 2] = [
    (
        "fftgen/wisdom/h200.json",
        include_str!("../../wisdom/h200.json"),
    ),
    (
        "fftgen/wisdom/h100.json",
        include_str!("../../wisdom/h100.json"),
    ),
];

/// The shapes measured on one GPU model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WisdomFile {
    /// The GPU model the shapes were measured on (`H200`): a target whose
    /// model contains it (ignoring case) plans with them.
    pub gpu: String,
    /// Whether GPUs with no file of their own plan with these shapes too.
    #[serde(default)]
    pub fallback: bool,
    /// What the shapes are and how they were measured.
    #[serde(default)]
    pub about: String,
    /// The one-kernel cost model fitted on this GPU model, where one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<super::CostModel>,
    /// The model of whole plans fitted on this GPU model, where one was.
    #[serde(
        default,
        rename = "plan-model",
        skip_serializing_if = "Option::is_none"
    )]
    pub plan_model: Option<super::PlanModel>,
    pub entries: Vec<WisdomEntry>,
}

/// One measured winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WisdomEntry {
    pub precision: Precision,
    /// Points of one transform.
    pub n: usize,
    /// The transform's shape where it has several axes (`[1024, 1024]`);
    /// a 1D entry leaves it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<usize>>,
    /// What the choices shape: the whole transform (left out), each column
    /// pass of `n` points in a plan of several passes, or the one-kernel
    /// pass of a real axis whose complex FFT is `n` points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<PassScope>,
    /// The choices that won; those left out stay the planner's.
    pub choices: ShapeChoices,
    /// The logs holding the timings that justify the entry.
    #[serde(default)]
    pub evidence: Vec<String>,
}

/// The passes an entry's choices shape, where not a whole transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PassScope {
    /// Every pass of `n` points whose FFTs are columns (points far apart)
    /// in a plan of several passes: a block shape, not a split.
    Column,
    /// Those of the column passes that also apply a four-step twiddle (the
    /// first pass of a 1D axis): where present, it wins over `Column` there.
    TwiddledColumn,
    /// The one-kernel pass of a real axis whose complex FFT has `n` points
    /// (N / 2 of an even N, N of an odd one): a C2C shape of `n` with the
    /// split and the merge at its ends, which stage rows through shared
    /// memory. Where present, it wins over the C2C entry of `n` there.
    RealRow,
}

impl WisdomEntry {
    /// The shape of the transform the entry was measured for (of the
    /// pass, for a column-pass entry).
    pub fn shape(&self) -> Vec<usize> {
        self.shape.clone().unwrap_or_else(|| vec![self.n])
    }

    /// Why the entry cannot be planned with, if it cannot.
    fn defect(&self) -> Option<String> {
        let (precision, n) = (self.precision, self.n);
        if self.shape().iter().product::<usize>() != n {
            return Some(format!(
                "the {precision} entry for n = {n} has shape {:?}, whose product is not n",
                self.shape()
            ));
        }
        if let Some(radices) = &self.choices.radices {
            if radices.iter().product::<usize>() != n {
                return Some(format!(
                    "the {precision} entry for n = {n} has radices {radices:?}, whose product is not n"
                ));
            }
        }
        let whole_plan = self.choices.several_passes_only();
        if self.pass.is_some() && (self.shape.is_some() || !whole_plan.is_empty()) {
            return Some(format!(
                "the {precision} pass entry for n = {n} gives {}: a pass has one axis and \
                 no split or column I/O of its own",
                match self.shape.is_some() {
                    true => "a shape".to_string(),
                    false => whole_plan.to_string(),
                }
            ));
        }
        None
    }
}

impl WisdomFile {
    /// Parses a wisdom file; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<WisdomFile, Error> {
        let bad = |reason: String| Error::BadWisdom {
            origin: origin.to_string(),
            reason,
        };
        let file: WisdomFile = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        match file.entries.iter().find_map(WisdomEntry::defect) {
            Some(defect) => Err(bad(defect)),
            None => Ok(file),
        }
    }

    /// Reads and parses the wisdom file at `path`.
    pub fn load(path: &Path) -> Result<WisdomFile, Error> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| Error::BadWisdom {
            origin: origin.clone(),
            reason: format!("cannot read it: {e}"),
        })?;
        WisdomFile::from_json(&text, &origin)
    }

    /// The file as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("wisdom always serialises") + "\n"
    }

    /// This file with `entry` in place of any of the same size, precision
    /// and scope.
    pub fn with_entry(mut self, entry: WisdomEntry) -> WisdomFile {
        let key = |e: &WisdomEntry| (e.precision, e.shape(), e.pass);
        self.entries.retain(|e| key(e) != key(&entry));
        self.entries.push(entry);
        self.entries
            .sort_by_key(|e| (e.pass, e.precision, e.n, e.shape()));
        self
    }

    /// Whether `target`'s model is this file's GPU.
    pub fn measured_on(&self, target: &Target) -> bool {
        !self.gpu.is_empty()
            && target
                .model
                .to_lowercase()
                .contains(&self.gpu.to_lowercase())
    }
}

/// The wisdom the planner consults, in order of precedence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wisdom {
    files: Vec<WisdomFile>,
}

impl Wisdom {
    /// The files built into the generator.
    pub fn built_in() -> &'static Wisdom {
        static BUILT_IN_WISDOM: OnceLock<Wisdom> = OnceLock::new();
        BUILT_IN_WISDOM.get_or_init(|| Wisdom {
            files: BUILT_IN
                .iter()
                .map(|(origin, text)| {
                    WisdomFile::from_json(text, origin)
                        .unwrap_or_else(|e| panic!("built-in wisdom is checked by its tests: {e}"))
                })
                .collect(),
        })
    }

    /// No files: what the planner's model plans alone.
    pub fn none() -> Wisdom {
        Wisdom { files: Vec::new() }
    }

    /// `files` alone, the first consulted first.
    pub fn of_files(files: Vec<WisdomFile>) -> Wisdom {
        Wisdom { files }
    }

    /// The wisdom a spec plans with: the file it names, else the one
    /// [`WISDOM_ENV`] names, before the built-in files; the built-in files
    /// alone, borrowed, when neither names one.
    pub fn for_spec(file: Option<&Path>) -> Result<Cow<'static, Wisdom>, Error> {
        let from_env = std::env::var_os(WISDOM_ENV)
            .filter(|path| !path.is_empty())
            .map(PathBuf::from);
        let Some(path) = file.map(Path::to_path_buf).or(from_env) else {
            return Ok(Cow::Borrowed(Wisdom::built_in()));
        };
        let mut wisdom = Wisdom::built_in().clone();
        wisdom.files.insert(0, WisdomFile::load(&path)?);
        Ok(Cow::Owned(wisdom))
    }

    /// Every file, in order of precedence.
    pub fn files(&self) -> &[WisdomFile] {
        &self.files
    }

    /// The entries for whole transforms of `shape` in `precision` that may
    /// apply on `target`, first to last: those of files measured on its
    /// model, then those of fallback files.
    pub fn candidates<'a>(
        &'a self,
        shape: &'a [usize],
        precision: Precision,
        target: &'a Target,
    ) -> impl Iterator<Item = &'a WisdomEntry> {
        self.candidates_with_files(shape, precision, target)
            .map(|(_, entry)| entry)
    }

    /// [`Wisdom::candidates`], each with the file it comes from (what
    /// `fftgen plan` names as a shape's origin).
    pub fn candidates_with_files<'a>(
        &'a self,
        shape: &'a [usize],
        precision: Precision,
        target: &'a Target,
    ) -> impl Iterator<Item = (&'a WisdomFile, &'a WisdomEntry)> {
        self.in_order(target).filter(move |(_, e)| {
            e.pass.is_none() && e.precision == precision && e.shape() == shape
        })
    }

    /// The first entry for the column passes of `n` points in `precision`
    /// on `target`, with its file, in the order of [`Wisdom::candidates`]:
    /// for a pass that applies a four-step twiddle (`twiddled`), a
    /// [`PassScope::TwiddledColumn`] entry where there is one. Only files
    /// measured on `target`'s own model count: a column pass's block shape
    /// is what differs between GPUs.
    pub fn column_pass<'a>(
        &'a self,
        n: usize,
        precision: Precision,
        target: &'a Target,
        twiddled: bool,
    ) -> Option<(&'a WisdomFile, &'a WisdomEntry)> {
        let scoped = |scope: PassScope| {
            self.in_order(target).find(move |(file, e)| {
                file.measured_on(target)
                    && e.pass == Some(scope)
                    && (e.precision, e.n) == (precision, n)
            })
        };
        twiddled
            .then(|| scoped(PassScope::TwiddledColumn))
            .flatten()
            .or_else(|| scoped(PassScope::Column))
    }

    /// The first entry for the one-kernel pass of a real axis whose complex
    /// FFT has `n` points in `precision` on `target` ([`PassScope::RealRow`]),
    /// with its file; only files measured on `target`'s own model count.
    pub fn real_row<'a>(
        &'a self,
        n: usize,
        precision: Precision,
        target: &'a Target,
    ) -> Option<(&'a WisdomFile, &'a WisdomEntry)> {
        self.in_order(target).find(move |(file, e)| {
            file.measured_on(target)
                && e.pass == Some(PassScope::RealRow)
                && (e.precision, e.n) == (precision, n)
        })
    }

    /// Every entry that may apply on `target`, with its file: those of
    /// files measured on its model, then those of fallback files.
    fn in_order<'a>(
        &'a self,
        target: &'a Target,
    ) -> impl Iterator<Item = (&'a WisdomFile, &'a WisdomEntry)> {
        self.files_for(target)
            .flat_map(|f| f.entries.iter().map(move |e| (f, e)))
    }

    /// The files that may apply on `target`: those measured on its model,
    /// then the fallback files.
    fn files_for<'a>(&'a self, target: &Target) -> impl Iterator<Item = &'a WisdomFile> + use<'a> {
        let measured: Vec<bool> = self.files.iter().map(|f| f.measured_on(target)).collect();
        let own = self
            .files
            .iter()
            .zip(measured.clone())
            .filter(|(_, own)| *own);
        let fallback = (self.files.iter().zip(measured)).filter(|(f, own)| f.fallback && !own);
        own.chain(fallback).map(|(f, _)| f)
    }

    /// The cost model fitted on `target`'s own model, else the fallback
    /// files' ([`super::cost`]).
    pub fn model(&self, target: &Target) -> Option<&super::CostModel> {
        self.files_for(target).find_map(|f| f.model.as_ref())
    }

    /// The model of whole plans of `precision` fitted on `target`'s own
    /// model, else the fallback files' ([`super::PlanModel`]).
    pub fn plan_model(
        &self,
        target: &Target,
        precision: crate::Precision,
    ) -> Option<&super::PlanModel> {
        self.files_for(target)
            .filter_map(|f| f.plan_model.as_ref())
            .find(|m| m.precision == precision)
    }

    /// The transform shapes and precisions that files measured on
    /// `target`'s own model have choices for.
    pub fn tuned_shapes(&self, target: &Target) -> Vec<(Precision, Vec<usize>)> {
        self.files
            .iter()
            .filter(|f| f.measured_on(target))
            .flat_map(|f| &f.entries)
            .filter(|e| e.pass.is_none())
            .map(|e| (e.precision, e.shape()))
            .collect()
    }

    /// The built-in presets with a wisdom file of their own.
    pub fn tuned_targets() -> Vec<Target> {
        Target::PRESETS
            .iter()
            .filter(|t| Wisdom::built_in().files.iter().any(|f| f.measured_on(t)))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_files_parse_and_one_is_the_fallback() {
        let wisdom = Wisdom::built_in();
        assert_eq!(wisdom.files().len(), 2);
        assert_eq!(wisdom.files().iter().filter(|f| f.fallback).count(), 1);
        for file in wisdom.files() {
            assert!(!file.entries.is_empty(), "{}", file.gpu);
            for entry in &file.entries {
                assert!(!entry.evidence.is_empty(), "{} {}", file.gpu, entry.n);
            }
        }
        let tuned: Vec<_> = Wisdom::tuned_targets()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(tuned, vec!["h100", "h200"]);
    }

    #[test]
    fn a_model_prefers_its_own_shapes_then_the_fallback() {
        let first = |n, precision, target: &Target| {
            Wisdom::built_in()
                .candidates(&[n], precision, target)
                .next()
                .map(|e| e.choices.clone())
        };
        let bound =
            |target: &Target| first(2187, Precision::F32, target).and_then(|c| c.min_blocks_per_sm);
        assert_eq!(bound(&Target::H200), Some(6));
        assert_eq!(bound(&Target::PORTABLE), Some(4));
        let (h200, portable) = (Target::H200, Target::PORTABLE);
        // A size the H200 has no shape of its own for uses the fallback's.
        assert_eq!(
            first(8, Precision::F32, &h200).unwrap().radices,
            Some(vec![2, 4])
        );
        assert_eq!(first(4096, Precision::F32, &portable), None);
        // The device's own name matches as well as the preset.
        let device = Target {
            model: "H200 NVL".into(),
            ..Target::CUDA
        };
        assert_eq!(bound(&device), Some(6));
    }

    #[test]
    fn bad_files_are_errors_that_name_them() {
        let err = WisdomFile::from_json(r#"{"gpu": "X", "entries": [{"n": 8}]}"#, "mine.json")
            .unwrap_err();
        assert!(err.to_string().contains("mine.json"), "{err}");
        let product = r#"{"gpu": "X", "entries": [
            {"precision": "f32", "n": 8, "choices": {"radix": [2, 2]}}]}"#;
        let err = WisdomFile::from_json(product, "mine.json").unwrap_err();
        assert!(err.to_string().contains("product"), "{err}");
        let err = WisdomFile::load(Path::new("/nonexistent/wisdom.json")).unwrap_err();
        assert!(err.to_string().contains("cannot read"), "{err}");
    }

    #[test]
    fn a_new_entry_replaces_the_old_one_of_its_size() {
        let entry = |n, radix: Vec<usize>| WisdomEntry {
            precision: Precision::F32,
            n,
            shape: None,
            pass: None,
            choices: ShapeChoices {
                radices: Some(radix),
                ..ShapeChoices::default()
            },
            evidence: vec![],
        };
        let file = WisdomFile {
            gpu: "X".into(),
            fallback: false,
            about: String::new(),
            model: None,
            plan_model: None,
            entries: vec![entry(64, vec![8, 8]), entry(16, vec![16])],
        };
        let file = file.with_entry(entry(64, vec![4, 16]));
        assert_eq!(file.entries.len(), 2);
        assert_eq!(file.entries[1].choices.radices, Some(vec![4, 16]));
        let again = WisdomFile::from_json(&file.to_json(), "round trip").unwrap();
        assert_eq!(again, file);
    }

    #[test]
    fn twiddled_column_entries_win_on_passes_that_twiddle() {
        let file = r#"{"gpu": "H200", "entries": [
            {"precision": "f32", "n": 1024, "pass": "column", "choices": {"min-blocks-per-sm": 2}},
            {"precision": "f32", "n": 1024, "pass": "twiddled-column", "choices": {"exchange-width": "interleaved"}}]}"#;
        let wisdom = Wisdom {
            files: vec![WisdomFile::from_json(file, "mine.json").unwrap()],
        };
        let h200 = Target::H200;
        let (_, plain) = wisdom
            .column_pass(1024, Precision::F32, &h200, false)
            .unwrap();
        assert_eq!(plain.pass, Some(PassScope::Column));
        let (_, twiddled) = wisdom
            .column_pass(1024, Precision::F32, &h200, true)
            .unwrap();
        assert_eq!(twiddled.pass, Some(PassScope::TwiddledColumn));
    }

    #[test]
    fn column_pass_entries_shape_passes_of_their_gpu_not_transforms() {
        let file = r#"{"gpu": "H200", "entries": [
            {"precision": "f32", "n": 512, "pass": "column", "choices": {"min-blocks-per-sm": 3}}]}"#;
        let wisdom = Wisdom {
            files: vec![WisdomFile::from_json(file, "mine.json").unwrap()],
        };
        let h200 = Target::H200;
        assert_eq!(wisdom.candidates(&[512], Precision::F32, &h200).count(), 0);
        let (_, entry) = wisdom
            .column_pass(512, Precision::F32, &h200, false)
            .unwrap();
        assert_eq!(entry.choices.min_blocks_per_sm, Some(3));
        // A twiddled pass takes the column entry where it has none of its own.
        let (_, entry) = wisdom
            .column_pass(512, Precision::F32, &h200, true)
            .unwrap();
        assert_eq!(entry.choices.min_blocks_per_sm, Some(3));
        assert!(wisdom
            .column_pass(512, Precision::F64, &h200, false)
            .is_none());
        assert!(wisdom
            .column_pass(512, Precision::F32, &Target::H100, false)
            .is_none());
        // A pass has no split or column I/O of its own.
        let split = r#"{"gpu": "X", "entries": [{"precision": "f32", "n": 512,
            "pass": "column", "choices": {"split": [16, 32]}}]}"#;
        let err = WisdomFile::from_json(split, "mine.json").unwrap_err();
        assert!(err.to_string().contains("pass entry for n = 512"), "{err}");
    }
}
