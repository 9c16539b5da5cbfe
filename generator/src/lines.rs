//! Lines of a text: where each starts, found once, so the line and column of any
//! byte offset is a binary search rather than a scan from the text's start (which,
//! once for each link of a long page, made loading quadratic in its size).

/// The byte offset at which each line of a text starts.
#[derive(Debug, Clone)]
pub struct LineStarts {
    starts: Vec<usize>,
}

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineStarts { starts }
    }

    /// The 1-based line and 1-based column (in bytes) of `offset`.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        (line, offset - self.starts[line - 1] + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_offsets_by_line_and_byte_column() {
        let text = "ab\ncdé\n\nx";
        let lines = LineStarts::new(text);
        assert_eq!(lines.locate(0), (1, 1));
        assert_eq!(lines.locate(2), (1, 3), "the newline ends its line");
        assert_eq!(lines.locate(3), (2, 1));
        assert_eq!(lines.locate(7), (2, 5), "columns count bytes");
        assert_eq!(lines.locate(8), (3, 1));
        assert_eq!(lines.locate(9), (4, 1));
    }

    #[test]
    fn agrees_with_counting_from_the_start() {
        let text = "one\ntwo three\n\n  four [link](/x)\nfive";
        let lines = LineStarts::new(text);
        for offset in 0..text.len() {
            let line = text[..offset].matches('\n').count() + 1;
            let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
            assert_eq!(lines.locate(offset), (line, column), "offset {offset}");
        }
    }
}
