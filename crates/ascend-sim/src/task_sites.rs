//! Where in the host program each task was submitted: a front end hands the simulator the call
//! site of each task it launches ([`crate::Sim::note_task_site`], "main (prog.c:17)"), and the
//! simulator adds it to what it says of a task: its hazards, its fault, a stalled wait
//! ("task 3 was submitted at main (prog.c:17)"). The latest [`SITES_KEPT`] tasks' sites are
//! kept; the map has a lock of its own, so noting a site never waits for device work.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Tasks whose call sites are kept (the oldest go first).
pub const SITES_KEPT: usize = 65_536;

/// The call sites of the latest tasks, by task number.
#[derive(Debug, Default)]
pub struct TaskSites {
    sites: Mutex<BTreeMap<u64, Arc<str>>>,
}

impl TaskSites {
    /// Task `task` was submitted at `site`.
    pub fn note(&self, task: u64, site: Arc<str>) {
        let mut m = self.sites.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(task, site);
        if m.len() > SITES_KEPT {
            m.pop_first();
        }
    }

    /// `text`, about task `task`, with that task's call site and those of the tasks it names
    /// said after it.
    pub fn said_for_task(&self, text: &str, task: u64) -> String {
        if text.contains(&format!("task {task}")) {
            return self.said_with_sites(text);
        }
        let site = self
            .sites
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&task)
            .cloned();
        match site {
            Some(site) => format!("{text} [task {task} was submitted at {site}]"),
            None => self.said_with_sites(text),
        }
    }

    /// `text` with the call sites of the tasks it names ("task 3", "kernel task 4") said after
    /// it, at most three: "[task 3 was submitted at main (prog.c:17)]". Unchanged when it names
    /// none with a known site.
    pub fn said_with_sites(&self, text: &str) -> String {
        let m = self.sites.lock().unwrap_or_else(|p| p.into_inner());
        if m.is_empty() {
            return text.to_string();
        }
        let mut named: Vec<u64> = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find("task ") {
            rest = &rest[at + 5..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u64>() {
                if !named.contains(&n) {
                    named.push(n);
                }
            }
        }
        let mut out = String::new();
        for n in named.iter().filter(|n| m.contains_key(n)).take(3) {
            let sep = if out.is_empty() { "" } else { "; " };
            let _ = write!(out, "{sep}task {n} was submitted at {}", m[n]);
        }
        if out.is_empty() {
            text.to_string()
        } else {
            format!("{text} [{out}]")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tasks_a_text_names_get_their_sites_and_others_do_not() {
        let s = TaskSites::default();
        s.note(3, "main (prog.c:17)".into());
        s.note(5, "producer (prog.c:40)".into());
        let said = s.said_with_sites("task 3 (Memcpy) on stream 1 and kernel task 5 and task 9");
        assert!(said.ends_with(
            "[task 3 was submitted at main (prog.c:17); task 5 was submitted at producer (prog.c:40)]"
        ), "{said}");
        assert_eq!(s.said_with_sites("nothing named"), "nothing named");
        // About a task the text does not name: its site is added; about one without a site,
        // the text is as it was.
        assert!(s
            .said_for_task("a fault", 3)
            .ends_with("[task 3 was submitted at main (prog.c:17)]"));
        assert_eq!(s.said_for_task("a fault", 4), "a fault");
    }

    #[test]
    fn only_the_latest_tasks_sites_are_kept() {
        let s = TaskSites::default();
        for t in 0..(SITES_KEPT as u64 + 10) {
            s.note(t, "f".into());
        }
        let m = s.sites.lock().unwrap();
        assert_eq!(m.len(), SITES_KEPT);
        assert!(!m.contains_key(&0));
    }
}
