//! The words of the reader's messages: a model's name as an editor calls it
//! (`CardGrid` → "card grid"), a list of field names, and where a list item is,
//! counted from one (`blocks[1]` → "in the 2nd block").

/// A struct's name in an editor's words: `CardGrid` → "card grid".
pub(super) fn friendly(name: &str) -> String {
    match name {
        "PageHead" => return "page".to_string(),
        "SiteConfig" => return "site".to_string(),
        "ArticleMatter" => return "article".to_string(),
        "FrontMatter" => return "page".to_string(),
        _ => {}
    }
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

pub(super) fn article(words: &str) -> &'static str {
    if words.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

pub(super) fn names(list: &[&str]) -> String {
    list.iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a field path's list items are, counted from one as an editor counts:
/// `blocks[1].cards[0].title` is "in the 2nd block, its 1st card". `None` for a
/// path without list items.
pub fn in_words(path: &str) -> Option<String> {
    let mut places = Vec::new();
    for segment in path.split('.') {
        let Some((name, rest)) = segment.split_once('[') else {
            continue;
        };
        for index in rest.split('[') {
            let Ok(i) = index.trim_end_matches(']').parse::<usize>() else {
                continue;
            };
            places.push(format!("{} {}", ordinal(i + 1), singular(name)));
        }
    }
    let (first, rest) = places.split_first()?;
    let mut words = format!("in the {first}");
    for place in rest {
        words.push_str(&format!(", its {place}"));
    }
    Some(words)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `blocks` → `block`, `entries` → `entry`; a name that is no plural stays.
fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name.strip_suffix("es").filter(|s| s.ends_with("ias")) {
        // `aliases` → `alias`.
        stem.to_string()
    } else if let Some(stem) = name.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stem.to_string()
    } else if name.is_empty() {
        "item".to_string()
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items_are_counted_from_one_in_words() {
        assert_eq!(in_words("title"), None);
        assert_eq!(
            in_words("blocks[1].type").as_deref(),
            Some("in the 2nd block")
        );
        assert_eq!(
            in_words("blocks[0].cards[3].title").as_deref(),
            Some("in the 1st block, its 4th card")
        );
        assert_eq!(
            in_words("footer.groups[0].links[24].href").as_deref(),
            Some("in the 1st group, its 25th link")
        );
        assert_eq!(
            in_words("entries[10]").as_deref(),
            Some("in the 11th entry")
        );
        assert_eq!(in_words("items[11]").as_deref(), Some("in the 12th item"));
        assert_eq!(
            in_words("address[1]").as_deref(),
            Some("in the 2nd address")
        );
    }
}
