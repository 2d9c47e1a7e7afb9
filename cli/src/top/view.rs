//! How a [`View`] looks: the numbers as text (shared by the screen and
//! `--once`), the plain-text snapshot, and the full-screen layout.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Sparkline, Table};

use super::model::{GroupRow, Histogram, TopicRow, View, names};

/// What a missing value shows as.
pub const MISSING: &str = "–";

/// A per-second rate of things: `12`, `3.4`, `1.23k`, `45.6M`.
pub fn rate(v: Option<f64>) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return MISSING.into();
    };
    if v == 0.0 {
        "0".into()
    } else if v < 10.0 {
        format!("{v:.1}")
    } else {
        si(v)
    }
}

/// A count with a metric prefix above 10,000: `9999`, `12.3k`.
fn si(v: f64) -> String {
    let (div, unit) = match v.abs() {
        a if a >= 1e12 => (1e12, "T"),
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ => return format!("{v:.0}"),
    };
    let x = v / div;
    if x >= 100.0 {
        format!("{x:.0}{unit}")
    } else {
        format!("{x:.1}{unit}")
    }
}

/// Bytes per second in binary units: `512 B`, `1.5 KiB`, `20 MiB`.
pub fn bytes(v: Option<f64>) -> String {
    let Some(v) = v.filter(|v| v.is_finite() && *v >= 0.0) else {
        return MISSING.into();
    };
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = v;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{x:.0} B")
    } else if x >= 100.0 {
        format!("{x:.0} {}", UNITS[unit])
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// An offset or a gauge, whole: `1400`.
pub fn whole(v: Option<f64>) -> String {
    match v.filter(|v| v.is_finite()) {
        Some(v) => format!("{v:.0}"),
        None => MISSING.into(),
    }
}

/// A duration in seconds: `850µs`, `1.20ms`, `2.50s`.
pub fn duration(v: Option<f64>) -> String {
    let Some(v) = v.filter(|v| v.is_finite() && *v >= 0.0) else {
        return MISSING.into();
    };
    if v < 1e-3 {
        format!("{:.0}µs", v * 1e6)
    } else if v < 1.0 {
        format!("{:.2}ms", v * 1e3)
    } else {
        format!("{v:.2}s")
    }
}

/// Uptime: `42s`, `5m07s`, `1h02m`, `3d04h`.
pub fn uptime(v: Option<f64>) -> String {
    let Some(v) = v.filter(|v| v.is_finite() && *v >= 0.0) else {
        return MISSING.into();
    };
    // Truncation is the point: whole seconds.
    let s = v as u64;
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m{:02}s", s / 60, s % 60),
        s if s < 86400 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s => format!("{}d{:02}h", s / 86400, s % 86400 / 3600),
    }
}

/// Text from the broker (topic, group, version), safe on a terminal.
pub fn label(s: &str) -> String {
    crate::out::escaped(s)
}

fn quantiles(h: &Histogram) -> String {
    format!(
        "p50 {} p99 {}",
        duration(h.quantile(0.5)),
        duration(h.quantile(0.99))
    )
}

/// The header's three lines: who and how, latencies, totals.
pub fn header(admin: &str, v: &View) -> [String; 3] {
    let s = &v.now;
    let ready = match s.scalar(names::READY) {
        Some(r) if r >= 1.0 => "yes",
        Some(_) => "NO",
        None => MISSING,
    };
    let version = s
        .version
        .as_deref()
        .map(|v| format!(" v{}", label(v)))
        .unwrap_or_default();
    let hidden = match s.scalar(names::TOPICS_HIDDEN) {
        Some(h) if h > 0.0 => format!(" ({} hidden)", whole(Some(h))),
        _ => String::new(),
    };
    [
        format!(
            "{}{version}  ready {ready}  up {}  connections {} (refused {}/s)",
            label(admin),
            uptime(s.scalar(names::UPTIME)),
            whole(s.scalar(names::CONNECTIONS_OPEN)),
            rate(v.refused),
        ),
        format!(
            "produce {}   fetch {}   fsync {}",
            quantiles(&v.produce),
            quantiles(&v.fetch),
            quantiles(&v.fsync),
        ),
        format!(
            "in {} rec/s {}/s   out {} rec/s {}/s   topics {}{hidden}   parked fetches {}   open files {}",
            rate(v.records_in),
            bytes(v.bytes_in),
            rate(v.records_out),
            bytes(v.bytes_out),
            whole(s.scalar(names::TOPICS)),
            whole(s.scalar(names::FETCHES_PARKED)),
            whole(s.scalar(names::OPEN_FILES)),
        ),
    ]
}

/// Column titles of the topics table.
pub const TOPIC_COLUMNS: [&str; 7] = [
    "TOPIC",
    "PART",
    "REC/S IN",
    "REC/S OUT",
    "B/S IN",
    "B/S OUT",
    "LOG END",
];

/// A topics table row as text.
pub fn topic_cells(t: &TopicRow) -> [String; 7] {
    [
        label(&t.topic),
        label(&t.partition),
        rate(t.records_in),
        rate(t.records_out),
        bytes(t.bytes_in),
        bytes(t.bytes_out),
        whole(t.log_end),
    ]
}

/// Column titles of the groups table.
pub const GROUP_COLUMNS: [&str; 5] = ["GROUP", "TOPIC", "PART", "LAG", "COMMITTED"];

/// A groups table row as text.
pub fn group_cells(g: &GroupRow) -> [String; 5] {
    [
        label(&g.group),
        label(&g.topic),
        label(&g.partition),
        whole(g.lag),
        whole(g.committed),
    ]
}

/// Rows as aligned columns: text left, numbers right; two spaces apart.
fn columns<const N: usize>(titles: [&str; N], rows: &[[String; N]], text_cols: usize) -> String {
    let mut widths = titles.map(|t| t.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i > 0 {
                l.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            if i < text_cols {
                l.push_str(cell);
                l.extend(std::iter::repeat_n(' ', pad));
            } else {
                l.extend(std::iter::repeat_n(' ', pad));
                l.push_str(cell);
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&titles);
    for row in rows {
        line(&row.each_ref().map(String::as_str));
    }
    out
}

/// The `--once` snapshot: header, topics, groups, as plain text.
pub fn plain(admin: &str, v: &View) -> String {
    let mut out = String::new();
    for l in header(admin, v) {
        out.push_str(&l);
        out.push('\n');
    }
    if v.now.skipped_lines > 0 {
        let n = v.now.skipped_lines;
        let s = if n == 1 { "" } else { "s" };
        out.push_str(&format!("({n} line{s} of /metrics did not parse)\n"));
    }
    out.push('\n');
    let topics: Vec<_> = v.topics.iter().map(topic_cells).collect();
    out.push_str(&columns(TOPIC_COLUMNS, &topics, 2));
    out.push('\n');
    let groups: Vec<_> = v.groups.iter().map(group_cells).collect();
    out.push_str(&columns(GROUP_COLUMNS, &groups, 3));
    out
}

/// What the screen shows besides the view: where the user scrolled, and
/// the newest error.
#[derive(Debug, Default)]
pub struct Screen {
    /// First topics row shown.
    pub topics_offset: usize,
    /// First groups row shown.
    pub groups_offset: usize,
    /// Which table the arrows scroll.
    pub focus: Focus,
    /// Rows the focused table showed last time (what a page is).
    pub page: usize,
    /// The last scrape's error, shown above the tables (the data below it
    /// is then the last good scrape's).
    pub error: Option<String>,
    /// fsync p99 per interval, oldest first, in microseconds (`None`: no
    /// fsync in that interval).
    pub fsync_history: Vec<Option<u64>>,
}

/// The table the scroll keys move.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The topics table.
    #[default]
    Topics,
    /// The groups table.
    Groups,
}

/// How many intervals of fsync history are kept (wider than a screen).
pub const HISTORY: usize = 512;

impl Screen {
    /// Scroll the focused table by `delta` rows (clamped when drawn).
    pub fn scroll(&mut self, delta: isize) {
        let offset = match self.focus {
            Focus::Topics => &mut self.topics_offset,
            Focus::Groups => &mut self.groups_offset,
        };
        *offset = offset.saturating_add_signed(delta);
    }

    /// Scroll the focused table to its top (`end = false`) or bottom.
    pub fn jump(&mut self, end: bool) {
        let offset = match self.focus {
            Focus::Topics => &mut self.topics_offset,
            Focus::Groups => &mut self.groups_offset,
        };
        *offset = if end { usize::MAX } else { 0 };
    }

    /// Record the newest interval's fsync p99.
    pub fn push_fsync(&mut self, v: &View) {
        // Microseconds, rounded: the sparkline takes integers.
        let p99 = v.fsync.quantile(0.99).map(|s| (s * 1e6).round() as u64);
        self.fsync_history.push(p99);
        if self.fsync_history.len() > HISTORY {
            self.fsync_history.remove(0);
        }
    }
}

/// Draw one frame. `view` is `None` before the first good scrape.
pub fn draw(frame: &mut Frame, admin: &str, view: Option<&View>, screen: &mut Screen) {
    let area = frame.area();
    let error_rows = u16::from(screen.error.is_some());
    let [head, body, help] = Layout::vertical([
        Constraint::Length(5 + error_rows),
        Constraint::Min(6),
        Constraint::Length(1),
    ])
    .areas(area);
    let [topics_area, bottom] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(body);
    let [groups_area, fsync_area] =
        Layout::horizontal([Constraint::Min(40), Constraint::Length(34)]).areas(bottom);

    let empty = View::default();
    let v = view.unwrap_or(&empty);
    let mut lines: Vec<Line> = match view {
        Some(v) => header(admin, v).into_iter().map(Line::from).collect(),
        None => vec![Line::from(format!(
            "{}  waiting for the first scrape…",
            label(admin)
        ))],
    };
    if let Some(e) = &screen.error {
        let stale = if view.is_some() {
            " (showing the last good scrape)"
        } else {
            ""
        };
        lines.push(Line::from(Span::styled(
            format!("error: {e}{stale}"),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        )));
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" hermit top ")),
        head,
    );

    let focus_style = |f: Focus| {
        if screen.focus == f {
            Style::new().fg(Color::Cyan)
        } else {
            Style::new()
        }
    };
    let topics: Vec<_> = v.topics.iter().map(topic_cells).collect();
    let shown = draw_table(
        frame,
        topics_area,
        &format!(" topics ({} partitions) ", topics.len()),
        focus_style(Focus::Topics),
        TOPIC_COLUMNS,
        &topics,
        2,
        &mut screen.topics_offset,
    );
    if screen.focus == Focus::Topics {
        screen.page = shown;
    }
    let groups: Vec<_> = v.groups.iter().map(group_cells).collect();
    let shown = draw_table(
        frame,
        groups_area,
        &format!(" groups by lag ({}) ", groups.len()),
        focus_style(Focus::Groups),
        GROUP_COLUMNS,
        &groups,
        3,
        &mut screen.groups_offset,
    );
    if screen.focus == Focus::Groups {
        screen.page = shown;
    }

    // The newest intervals that fit, right-aligned on the newest.
    let width = usize::from(fsync_area.width.saturating_sub(2));
    let history = &screen.fsync_history;
    let recent = &history[history.len().saturating_sub(width)..];
    let title = format!(
        " fsync p99 {} (max {}) ",
        duration(v.fsync.quantile(0.99)),
        duration(recent.iter().flatten().max().map(|&us| us as f64 / 1e6))
    );
    frame.render_widget(
        Sparkline::default()
            .block(Block::bordered().title(title))
            .data(recent)
            .style(Style::new().fg(Color::Yellow)),
        fsync_area,
    );

    let over = match v.interval {
        Some(secs) => format!("rates and latencies over the last {secs:.1} s"),
        None => "rates from the second scrape on".into(),
    };
    frame.render_widget(
        Paragraph::new(format!(
            "q quit  ↑↓ PgUp PgDn Home End scroll  Tab switch table  ({over})"
        ))
        .style(Style::new().add_modifier(Modifier::DIM)),
        help,
    );
}

/// One bordered table, scrolled to `offset` (clamped here, where the
/// height is known). Returns how many rows fit.
#[allow(clippy::too_many_arguments)]
fn draw_table<const N: usize>(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    border: Style,
    titles: [&str; N],
    rows: &[[String; N]],
    text_cols: usize,
    offset: &mut usize,
) -> usize {
    // Borders and the header row.
    let fits = usize::from(area.height.saturating_sub(3));
    *offset = (*offset).min(rows.len().saturating_sub(fits));
    let mut widths = titles.map(|t| t.chars().count());
    for row in rows.iter().skip(*offset).take(fits) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let constraints = widths.iter().enumerate().map(|(i, &w)| {
        // The first column (a name) takes what is left; the others keep
        // their width, so the numbers line up at the right edge.
        let w = u16::try_from(w).unwrap_or(u16::MAX);
        if i == 0 {
            Constraint::Min(w)
        } else {
            Constraint::Length(w)
        }
    });
    let align = |i: usize, s: &str, w: usize| -> String {
        if i < text_cols {
            s.to_owned()
        } else {
            format!("{s:>w$}")
        }
    };
    let header = Row::new(
        titles
            .iter()
            .enumerate()
            .map(|(i, t)| align(i, t, widths[i])),
    )
    .style(Style::new().add_modifier(Modifier::BOLD));
    let body = rows.iter().skip(*offset).take(fits).map(|row| {
        Row::new(
            row.iter()
                .enumerate()
                .map(|(i, c)| align(i, c, widths[i]))
                .collect::<Vec<_>>(),
        )
    });
    let more = if rows.len() > fits {
        format!(
            "{title}[{}–{} of {}] ",
            *offset + 1,
            (*offset + fits).min(rows.len()),
            rows.len()
        )
    } else {
        title.to_owned()
    };
    frame.render_widget(
        Table::new(body, constraints)
            .header(header)
            .column_spacing(2)
            .block(Block::bordered().title(more).border_style(border)),
        area,
    );
    fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::expo;
    use crate::top::model::Snapshot;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    #[test]
    fn numbers_as_text() {
        assert_eq!(rate(None), "–");
        assert_eq!(rate(Some(0.0)), "0");
        assert_eq!(rate(Some(2.345)), "2.3");
        assert_eq!(rate(Some(9999.0)), "9999");
        assert_eq!(rate(Some(12345.0)), "12.3k");
        assert_eq!(rate(Some(4.56e7)), "45.6M");
        assert_eq!(rate(Some(f64::NAN)), "–");
        assert_eq!(bytes(Some(512.0)), "512 B");
        assert_eq!(bytes(Some(1536.0)), "1.5 KiB");
        assert_eq!(bytes(Some(200.0 * 1024.0 * 1024.0)), "200 MiB");
        assert_eq!(duration(Some(0.00085)), "850µs");
        assert_eq!(duration(Some(0.0012)), "1.20ms");
        assert_eq!(duration(Some(2.5)), "2.50s");
        assert_eq!(duration(None), "–");
        assert_eq!(uptime(Some(42.9)), "42s");
        assert_eq!(uptime(Some(307.0)), "5m07s");
        assert_eq!(uptime(Some(3720.0)), "1h02m");
        assert_eq!(uptime(Some(3.0 * 86400.0 + 4.0 * 3600.0)), "3d04h");
        assert_eq!(whole(Some(1400.0)), "1400");
    }

    const FIXTURE: &str = include_str!("../../tests/fixtures/metrics.txt");

    fn fixture_view() -> View {
        let p = expo::parse(FIXTURE);
        let then = Snapshot::from_samples(&p.samples, p.skipped);
        // The same scrape a second later, with chat busier.
        let later = FIXTURE
            .replace(
                r#"hermit_partition_records_in_total{topic="chat",partition="0"} 1000"#,
                r#"hermit_partition_records_in_total{topic="chat",partition="0"} 1250"#,
            )
            .replace(
                "hermit_records_in_total 1010",
                "hermit_records_in_total 1260",
            )
            .replace(
                "hermit_bytes_in_total 124455",
                "hermit_bytes_in_total 1173031",
            )
            // 100 produces: 50 under 1 ms, 40 under 10 ms, 10 slower.
            .replace(r#"{le="0.001"} 100"#, r#"{le="0.001"} 150"#)
            .replace(r#"{le="0.01"} 190"#, r#"{le="0.01"} 280"#)
            .replace(r#"{le="+Inf"} 200"#, r#"{le="+Inf"} 300"#);
        let p = expo::parse(&later);
        View::new(
            Snapshot::from_samples(&p.samples, p.skipped),
            Some((&then, 1.0)),
        )
    }

    #[test]
    fn the_plain_snapshot() {
        let text = plain("127.0.0.1:9644", &fixture_view());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "127.0.0.1:9644 v0.1.0  ready yes  up 1h02m  connections 12 (refused 0/s)"
        );
        // Rank 50 ends the first bucket; rank 99 is in +Inf: the highest
        // finite bound. No fetch or fsync in the interval.
        assert_eq!(
            lines[1],
            "produce p50 1.00ms p99 10.00ms   fetch p50 – p99 –   fsync p50 – p99 –"
        );
        assert_eq!(
            lines[2],
            "in 250 rec/s 1.0 MiB/s   out 0 rec/s 0 B/s   topics 3 (1 hidden)   \
             parked fetches 4   open files 40"
        );
        assert_eq!(lines[3], "(1 line of /metrics did not parse)");
        let topics = lines
            .iter()
            .position(|l| l.starts_with("TOPIC"))
            .expect("topics table");
        assert_eq!(
            lines[topics],
            "TOPIC       PART  REC/S IN  REC/S OUT  B/S IN  B/S OUT  LOG END"
        );
        assert_eq!(
            lines[topics + 1],
            "chat        0          250          0     0 B      0 B     1250"
        );
        // Missing series show as "–"; a partition new since the last
        // scrape has no rate yet.
        assert_eq!(
            lines[topics + 2],
            "inbox.ab12  0            0          –     0 B        –       10"
        );
        assert_eq!(
            lines[topics + 3],
            "logs        2            –          –       –        –       77"
        );
        assert_eq!(lines[topics + 4], "");
        // The ESC in a group's name is shown, not obeyed.
        assert!(!text.contains('\x1b'));
        let groups = lines
            .iter()
            .position(|l| l.starts_with("GROUP"))
            .expect("groups table");
        assert_eq!(lines[groups], "GROUP        TOPIC  PART  LAG  COMMITTED");
        assert_eq!(
            lines[groups + 1],
            "g1           chat   0      42       1208"
        );
        assert_eq!(
            lines[groups + 2],
            "evil\\x1b[2J  chat   0       0          –"
        );
        assert_eq!(lines.len(), groups + 3);
    }

    fn screen_text(backend: &TestBackend) -> String {
        let buf = backend.buffer();
        let mut text = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                text.push_str(buf[(x, y)].symbol());
            }
            text.push('\n');
        }
        text
    }

    #[test]
    fn the_screen_shows_every_panel() {
        let mut terminal = Terminal::new(TestBackend::new(120, 30)).expect("test backend");
        let view = fixture_view();
        let mut screen = Screen {
            error: Some("/metrics answered 401 Unauthorized".into()),
            ..Screen::default()
        };
        screen.push_fsync(&view);
        terminal
            .draw(|f| draw(f, "127.0.0.1:9644", Some(&view), &mut screen))
            .expect("draw");
        let text = screen_text(terminal.backend());
        for want in [
            " hermit top ",
            "ready yes",
            "error: /metrics answered 401 Unauthorized",
            " topics (3 partitions) ",
            "REC/S IN",
            "chat",
            " groups by lag (2) ",
            "COMMITTED",
            " fsync p99 ",
            "q quit",
        ] {
            assert!(text.contains(want), "{want:?} missing from\n{text}");
        }
        // Busiest first: chat's row is above inbox.ab12's.
        assert!(text.find("chat ").expect("chat") < text.find("inbox.ab12").expect("inbox"));
    }

    #[test]
    fn scrolling_is_clamped_to_the_rows() {
        let mut terminal = Terminal::new(TestBackend::new(100, 20)).expect("test backend");
        let view = fixture_view();
        let mut screen = Screen::default();
        screen.scroll(1000);
        terminal
            .draw(|f| draw(f, "a:1", Some(&view), &mut screen))
            .expect("draw");
        // Three rows fit in the topics pane here, so nothing to scroll.
        assert_eq!(screen.topics_offset, 0);
        screen.focus = Focus::Groups;
        screen.jump(true);
        terminal
            .draw(|f| draw(f, "a:1", None, &mut screen))
            .expect("draw before the first scrape");
        assert_eq!(screen.groups_offset, 0);
        assert!(screen_text(terminal.backend()).contains("waiting for the first scrape"));
    }
}
