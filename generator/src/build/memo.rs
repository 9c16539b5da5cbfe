//! Values made from every page, kept by `site serve` from one build to the next
//! while no page changed in what they read: after a save of one post's text,
//! the sitemap and the renderer of 10,000 pages are not made again. A one-shot
//! build keeps none of them, so that each is freed once the stage that made it
//! is done with it.

use std::sync::Arc;

use crate::content::Page;

/// A value made from the pages and a key (the settings it also reads).
pub struct Memo<K, T> {
    made: Option<Memoized<K, T>>,
    /// Whether values are kept for the next build (`site serve`).
    keep: bool,
}

struct Memoized<K, T> {
    pages: Vec<Arc<Page>>,
    key: K,
    value: T,
}

/// A memo that keeps nothing: every `get` makes its value.
impl<K, T> Default for Memo<K, T> {
    fn default() -> Self {
        Memo {
            made: None,
            keep: false,
        }
    }
}

impl<K, T> Memo<K, T> {
    /// A memo that keeps its value for the next build.
    pub fn kept() -> Self {
        Memo {
            made: None,
            keep: true,
        }
    }
}

impl<K: PartialEq, T: Clone> Memo<K, T> {
    /// The value for `pages` and `key`: the one kept, when the key is equal and
    /// each page that changed since reads the same through `same`; else `make`'s.
    pub fn get(
        &mut self,
        pages: &[Arc<Page>],
        key: K,
        same: impl Fn(&Page, &Page) -> bool,
        make: impl FnOnce() -> T,
    ) -> T {
        if let Some(made) = &mut self.made {
            if made.key == key && unchanged(&made.pages, pages, &same) {
                // Compared with these pages next time, a later save is one change.
                made.pages = pages.to_vec();
                return made.value.clone();
            }
        }
        let value = make();
        if self.keep {
            self.made = Some(Memoized {
                pages: pages.to_vec(),
                key,
                value: value.clone(),
            });
        }
        value
    }

    /// Forgets the value (it may no longer be right).
    pub fn clear(&mut self) {
        self.made = None;
    }
}

/// The same pages in the same order, each the very same or the same through
/// `same`. Pages a build did not read again are the very same (`Arc::ptr_eq`).
fn unchanged(
    before: &[Arc<Page>],
    now: &[Arc<Page>],
    same: &impl Fn(&Page, &Page) -> bool,
) -> bool {
    before.len() == now.len()
        && before
            .iter()
            .zip(now)
            .all(|(b, n)| Arc::ptr_eq(b, n) || (b.route == n.route && same(b, n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(route: &str, title: &str) -> Arc<Page> {
        Arc::new(Page {
            route: route.into(),
            title: title.into(),
            ..Page::default()
        })
    }

    fn titles(memo: &mut Memo<(), String>, pages: &[Arc<Page>], made: &mut usize) -> String {
        memo.get(
            pages,
            (),
            |a, b| a.title == b.title,
            || {
                *made += 1;
                pages.iter().map(|p| p.title.as_str()).collect()
            },
        )
    }

    #[test]
    fn a_page_changed_only_where_the_value_does_not_read_keeps_the_value() {
        let mut memo = Memo::kept();
        let mut made = 0;
        let mut pages = vec![page("/a/", "A"), page("/b/", "B")];
        assert_eq!(titles(&mut memo, &pages, &mut made), "AB");
        let mut b = (*pages[1]).clone();
        b.content = "<p>new text</p>".into();
        pages[1] = Arc::new(b);
        assert_eq!(titles(&mut memo, &pages, &mut made), "AB");
        assert_eq!(made, 1);
    }

    #[test]
    fn a_change_it_reads_an_added_page_or_a_new_key_make_it_again() {
        let mut memo = Memo::kept();
        let mut made = 0;
        let mut pages = vec![page("/a/", "A"), page("/b/", "B")];
        titles(&mut memo, &pages, &mut made);
        pages[1] = page("/b/", "Bee");
        assert_eq!(titles(&mut memo, &pages, &mut made), "ABee");
        pages.push(page("/c/", "C"));
        assert_eq!(titles(&mut memo, &pages, &mut made), "ABeeC");
        pages[2] = page("/d/", "C");
        titles(&mut memo, &pages, &mut made);
        assert_eq!(made, 4);
        let mut keyed: Memo<&str, usize> = Memo::kept();
        assert_eq!(keyed.get(&pages, "x", |_, _| true, || 1), 1);
        assert_eq!(keyed.get(&pages, "y", |_, _| true, || 2), 2);
    }
}
