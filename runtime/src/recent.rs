//! A map that keeps at most a fixed number of entries, dropping the oldest
//! inserted past it, behind a lock: what the runtime's plan caches hold
//! (loaded kernels by context and spec, generated sources by spec).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};

/// At most `capacity` entries; past it the oldest inserted goes.
#[derive(Debug)]
pub(crate) struct Recent<K, V> {
    capacity: usize,
    entries: Mutex<(HashMap<K, V>, VecDeque<K>)>,
}

impl<K: Eq + Hash + Clone, V: Clone> Recent<K, V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Recent {
            capacity,
            entries: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.lock().0.get(key).cloned()
    }

    /// Keeps `value` for `key` (replacing what it held), dropping the oldest
    /// entries past the capacity.
    pub(crate) fn insert(&self, key: K, value: V) {
        let mut entries = self.lock();
        let (map, order) = &mut *entries;
        if map.insert(key.clone(), value).is_none() {
            order.push_back(key);
        }
        while order.len() > self.capacity {
            if let Some(oldest) = order.pop_front() {
                map.remove(&oldest);
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().0.len()
    }

    pub(crate) fn clear(&self) {
        let mut entries = self.lock();
        entries.0.clear();
        entries.1.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<K, V>, VecDeque<K>)> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_entries_go_past_the_capacity() {
        let recent = Recent::new(2);
        recent.insert(1, "a");
        recent.insert(2, "b");
        recent.insert(1, "c");
        assert_eq!((recent.get(&1), recent.len()), (Some("c"), 2));
        recent.insert(3, "d");
        assert_eq!(
            (recent.get(&1), recent.get(&2), recent.get(&3)),
            (None, Some("b"), Some("d"))
        );
        recent.clear();
        assert_eq!(recent.len(), 0);
    }
}
