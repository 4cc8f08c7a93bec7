//! [`Label`] and [`LabelList`]: jump targets in a model's stream (`aclrtCreateLabel`,
//! `aclrtCreateLabelList`, `aclrtSetLabel`, `aclrtSwitchLabelByIndex`); destroyed on drop.

use std::sync::Arc;

use super::device::DeviceGuard;
use crate::raw_types::{RawLabel, RawLabelList};

/// A label: a place in a model-bound stream ([`super::Stream::set_label`]) that a switch can
/// jump to.
#[derive(Debug)]
pub struct Label {
    dev: Arc<DeviceGuard>,
    raw: RawLabel,
}

impl Label {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawLabel) -> Self {
        Label { dev, raw }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawLabel {
        self.raw
    }
}

impl Drop for Label {
    fn drop(&mut self) {
        self.dev
            .release("destroying a label", |rt| rt.destroy_label(self.raw));
    }
}

/// The labels a switch chooses among ([`super::Stream::switch_label`]), by index. It borrows
/// its labels, so none can be destroyed while the list lives.
#[derive(Debug)]
pub struct LabelList<'l> {
    dev: Arc<DeviceGuard>,
    raw: RawLabelList,
    _labels: std::marker::PhantomData<&'l Label>,
}

impl LabelList<'_> {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawLabelList) -> Self {
        LabelList {
            dev,
            raw,
            _labels: std::marker::PhantomData,
        }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawLabelList {
        self.raw
    }
}

impl Drop for LabelList<'_> {
    fn drop(&mut self) {
        self.dev.release("destroying a label list", |rt| {
            rt.destroy_label_list(self.raw)
        });
    }
}
