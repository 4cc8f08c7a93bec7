//! Labels: `aclrtCreateLabel`, `aclrtDestroyLabel`, `aclrtCreateLabelList`,
//! `aclrtDestroyLabelList`, `aclrtSetLabel`, `aclrtSwitchLabelByIndex`.
//!
//! Rows and semantics from the vendor's runtime (docs/validation/labels.md). Labels mark points
//! of a model's streams; a switch, when the model runs, reads an index from device memory and
//! jumps to the label the list gives for it (clamped to the last), skipping what lies between.
//! The simulator models forward jumps on the switch's own stream; a backward jump, or one to
//! another stream of the model, faults the run with that said.

use ascend_types::Task;

use super::state::HandleKind;
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{Addr, RawLabel, RawLabelList, RawStream};

/// The most labels a process holds, and a list takes.
pub const MAX_LABELS: usize = 65535;

/// A label.
#[derive(Debug, Clone)]
pub(crate) struct LabelRec {
    pub ctx: u64,
    /// The list it was put in (a list's slot stays the label's after the list is destroyed).
    pub listed: bool,
    /// The stream it was set on.
    pub set_on: Option<u64>,
}

fn label_context(api: &str) -> AclError {
    AclError::new(
        ErrorCode::RtLabelContext,
        Some(MsgCode::EE1010),
        format!("{api} failed: the label belongs to another context"),
    )
}

fn label_state(api: &str, msg: Option<MsgCode>, why: &str) -> AclError {
    AclError::new(
        ErrorCode::RtInternalError,
        msg,
        format!("{api} failed: {why}"),
    )
}

impl Runtime {
    /// `aclrtCreateLabel(&label)`. Order: label NULL (100000, EH0008); no current context
    /// (107002); 65,535 labels already (507000).
    pub fn create_label(&self, label: Option<&mut RawLabel>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateLabel";
            let out_label = label.ok_or_else(|| fail::acl_null(api, "label"))?;
            let mut st = self.lock();
            let (ctx, _) = Self::current_device(&st, api)?;
            if st.labels.len() >= MAX_LABELS {
                return Err(label_state(
                    api,
                    None,
                    "no label id is left (65535 per process)",
                ));
            }
            let h = st.new_handle(HandleKind::Label);
            st.labels.insert(
                h,
                LabelRec {
                    ctx,
                    listed: false,
                    set_on: None,
                },
            );
            *out_label = RawLabel(h);
            Ok(())
        })
    }

    /// `aclrtDestroyLabel(label)`. Order: NULL (100000, EH0008); not a live label (107017);
    /// no current context (107002); a label of another context (507031, EE1010).
    pub fn destroy_label(&self, label: RawLabel) -> AclResult<()> {
        let label = label.0;
        self.call(|| {
            let api = "aclrtDestroyLabel";
            if label == 0 {
                return Err(fail::acl_null(api, "label"));
            }
            let mut st = self.lock();
            let rec = st
                .labels
                .get(&label)
                .cloned()
                .ok_or_else(|| fail::invalid_handle(api, "label", label))?;
            let (ctx, _) = Self::current_device(&st, api)?;
            if rec.ctx != ctx {
                return Err(label_context(api));
            }
            st.labels.remove(&label);
            Ok(())
        })
    }

    /// `aclrtCreateLabelList(labels, num, &labelList)`: each label's slot in the list is where
    /// a switch looks it up. Order: labels NULL, labelList NULL (100000, EH0008); num 0 or above
    /// 65,535 (107000, EE1003); a label not live (107017); no current context (107002); a label
    /// already in a list (507000).
    pub fn create_label_list(
        &self,
        labels: Option<&[RawLabel]>,
        label_list: Option<&mut RawLabelList>,
    ) -> AclResult<()> {
        let num = labels.map_or(0, <[RawLabel]>::len);
        let read = labels.map(|l| move || l.to_vec());
        self.create_label_list_counted(read, num, label_list)
    }

    /// `aclrtCreateLabelList` as the C ABI has it: `num` labels that `read` reads (from the
    /// caller's array) only once `num` has been checked, so that a count past the limit is
    /// refused without touching the array.
    pub fn create_label_list_counted(
        &self,
        read: Option<impl FnOnce() -> Vec<RawLabel>>,
        num: usize,
        label_list: Option<&mut RawLabelList>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtCreateLabelList";
            let read = read.ok_or_else(|| fail::acl_null(api, "labels"))?;
            let out = label_list.ok_or_else(|| fail::acl_null(api, "labelList"))?;
            if num == 0 || num > MAX_LABELS {
                return Err(fail::rt_value(api, "num", num, "(0, 65535]"));
            }
            let labels: Vec<u64> = read().into_iter().map(|l| l.0).collect();
            debug_assert_eq!(labels.len(), num);
            let labels = &labels[..];
            let mut st = self.lock();
            for &l in labels {
                if !st.labels.contains_key(&l) {
                    return Err(fail::invalid_handle(api, "labels", l));
                }
            }
            Self::current_device(&st, api)?;
            // Each label in turn: one already listed, or named twice here, is refused.
            let mut seen = std::collections::HashSet::with_capacity(labels.len());
            if labels
                .iter()
                .any(|l| st.labels[l].listed || !seen.insert(*l))
            {
                return Err(label_state(
                    api,
                    Some(MsgCode::EE9999),
                    "a label is already in a label list (or named twice in this one); a label takes one slot in one list",
                ));
            }
            for l in labels {
                if let Some(r) = st.labels.get_mut(l) {
                    r.listed = true;
                }
            }
            let h = st.new_handle(HandleKind::LabelList);
            st.label_lists.insert(h, labels.to_vec());
            *out = RawLabelList(h);
            Ok(())
        })
    }

    /// `aclrtDestroyLabelList(labelList)`. Order: NULL (100000, EH0008); not a live list
    /// (107017). Its labels keep their slots: they cannot join another list.
    pub fn destroy_label_list(&self, list: RawLabelList) -> AclResult<()> {
        let list = list.0;
        self.call(|| {
            let api = "aclrtDestroyLabelList";
            if list == 0 {
                return Err(fail::acl_null(api, "labelList"));
            }
            self.lock()
                .label_lists
                .remove(&list)
                .map(|_| ())
                .ok_or_else(|| fail::invalid_handle(api, "labelList", list))
        })
    }

    /// `aclrtSetLabel(label, stream)`: marks this point of a model's stream as the label.
    /// Order: label NULL, stream NULL (100000, EH0008); the label, then the stream handle
    /// (107017); no current context (107002); a label of another context (507031, EE1010); a
    /// stream of another context (107003); a stream not bound to a model (107005); the label
    /// set on another stream (507000, EE1017) or already set (507000, EE1018); a label in no
    /// list (507000, EE1018: `aclrtCreateLabelList` comes first).
    pub fn set_label(&self, label: RawLabel, stream: RawStream) -> AclResult<()> {
        let label = label.0;
        self.call(|| {
            let api = "aclrtSetLabel";
            if label == 0 {
                return Err(fail::acl_null(api, "label"));
            }
            if stream.0 == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            let srec = {
                let mut st = self.lock();
                let rec = st.labels.get(&label).cloned().ok_or_else(|| fail::invalid_handle(api, "label", label))?;
                Self::check_stream_handle(&st, api, stream)?;
                let (ctx, _) = Self::current_device(&st, api)?;
                if rec.ctx != ctx {
                    return Err(label_context(api));
                }
                let (_, srec) = Self::impl_stream(&st, api, stream)?;
                if srec.model.is_none() {
                    // The 950 family's runtime says so with EE1017; the others' only with
                    // their inner EE9999 note.
                    let msg = if self.chip.chip_type == ascend_chips::ChipType::David {
                        MsgCode::EE1017
                    } else {
                        MsgCode::EE9999
                    };
                    return Err(AclError::new(
                        ErrorCode::RtStreamModel,
                        Some(msg),
                        format!("{api} failed: stream {:#x} is not bound to a model; a label is set on a stream bound to a model (aclmdlRIBindStream)", stream.0),
                    ));
                }
                match rec.set_on {
                    Some(s) if s != stream.0 => {
                        return Err(label_state(api, Some(MsgCode::EE1017), "the label is set on another stream"))
                    }
                    Some(_) => return Err(label_state(api, Some(MsgCode::EE1018), "the label cannot be set repeatedly")),
                    None => {}
                }
                if !rec.listed {
                    return Err(label_state(
                        api,
                        Some(MsgCode::EE1018),
                        "the label is in no label list; call aclrtCreateLabelList before aclrtSetLabel",
                    ));
                }
                if let Some(r) = st.labels.get_mut(&label) {
                    r.set_on = Some(stream.0);
                }
                srec
            };
            self.launch(&srec, Task::LabelSet { label })
        })
    }

    /// `aclrtSwitchLabelByIndex(ptr, maxValue, labelList, stream)`: when the model runs, jumps
    /// to the label the list gives for the 32-bit index at `ptr` (clamped to `maxValue - 1`).
    /// Order: ptr, labelList, stream NULL (100000, EH0008); the stream handle (107017); no
    /// current context (107002); a stream of another context (107003); a stream not bound to
    /// a model (107005, EE1011); a list not live (107017).
    pub fn switch_label_by_index(
        &self,
        index: Addr,
        max: u32,
        list: RawLabelList,
        stream: RawStream,
    ) -> AclResult<()> {
        let list = list.0;
        self.call(|| {
            let api = "aclrtSwitchLabelByIndex";
            if index.is_null() {
                return Err(fail::acl_null(api, "ptr"));
            }
            if list == 0 {
                return Err(fail::acl_null(api, "labelList"));
            }
            if stream.0 == 0 {
                return Err(fail::acl_null(api, "stream"));
            }
            let (srec, labels) = {
                let st = self.lock();
                Self::check_stream_handle(&st, api, stream)?;
                let (_, srec) = Self::impl_stream(&st, api, stream)?;
                if srec.model.is_none() {
                    return Err(AclError::new(
                        ErrorCode::RtStreamModel,
                        Some(MsgCode::EE1011),
                        format!(
                            "{api} failed: the stream {:#x} is not bound to a model",
                            stream.0
                        ),
                    ));
                }
                let labels = st
                    .label_lists
                    .get(&list)
                    .cloned()
                    .ok_or_else(|| fail::invalid_handle(api, "labelList", list))?;
                (srec, labels)
            };
            self.launch(
                &srec,
                Task::LabelSwitch {
                    index: index.0,
                    max,
                    labels,
                },
            )
        })
    }
}
