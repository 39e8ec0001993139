//! The pending count drawn into the tray icon, for trays that show no text beside the icon
//! (Linux's StatusNotifierItem hosts; macOS shows the count as the icon's title instead).

/// Digits and `+` as 3×5 bitmaps, one row per entry, the top bit on the left.
const GLYPHS: [(char, [u8; 5]); 11] = [
    ('0', [0b111, 0b101, 0b101, 0b101, 0b111]),
    ('1', [0b010, 0b110, 0b010, 0b010, 0b111]),
    ('2', [0b111, 0b001, 0b111, 0b100, 0b111]),
    ('3', [0b111, 0b001, 0b111, 0b001, 0b111]),
    ('4', [0b101, 0b101, 0b111, 0b001, 0b001]),
    ('5', [0b111, 0b100, 0b111, 0b001, 0b111]),
    ('6', [0b111, 0b100, 0b111, 0b101, 0b111]),
    ('7', [0b111, 0b001, 0b010, 0b010, 0b010]),
    ('8', [0b111, 0b101, 0b111, 0b101, 0b111]),
    ('9', [0b111, 0b101, 0b111, 0b001, 0b111]),
    ('+', [0b000, 0b010, 0b111, 0b010, 0b000]),
];

const RED: [u8; 4] = [0xd7, 0x26, 0x2b, 0xff];
const WHITE: [u8; 4] = [0xff, 0xff, 0xff, 0xff];

/// What the badge says: nothing for none, the number up to 9, then `9+`.
pub fn badge_text(pending: usize) -> Option<String> {
    match pending {
        0 => None,
        1..=9 => Some(pending.to_string()),
        _ => Some("9+".into()),
    }
}

/// `rgba` (`width`×`height`, 4 bytes a pixel) with a red disc in the lower right corner holding
/// the pending count; unchanged when nothing is pending.
pub fn draw(rgba: &[u8], width: u32, height: u32, pending: usize) -> Vec<u8> {
    let mut out = rgba.to_vec();
    let Some(text) = badge_text(pending) else { return out };
    let (w, h) = (width as usize, height as usize);
    if out.len() != w * h * 4 || w == 0 || h == 0 {
        return out;
    }
    let size = w.min(h);
    let radius = size * 3 / 10;
    let (cx, cy) = (w - radius - 1, h - radius - 1);
    let mut put = |x: usize, y: usize, color: [u8; 4]| {
        if x < w && y < h {
            let at = (y * w + x) * 4;
            out[at..at + 4].copy_from_slice(&color);
        }
    };
    let r2 = (radius * radius) as isize;
    for y in cy.saturating_sub(radius)..=(cy + radius).min(h - 1) {
        for x in cx.saturating_sub(radius)..=(cx + radius).min(w - 1) {
            let (dx, dy) = (x as isize - cx as isize, y as isize - cy as isize);
            if dx * dx + dy * dy <= r2 {
                put(x, y, RED);
            }
        }
    }
    // Glyphs 3 wide with a gap of 1, 5 high, scaled to about 60 % of the disc's height and
    // 70 % of its width.
    let chars: Vec<[u8; 5]> =
        text.chars().filter_map(|c| GLYPHS.iter().find(|(g, _)| *g == c).map(|(_, rows)| *rows)).collect();
    let columns = (chars.len() * 4).saturating_sub(1).max(1);
    let scale = (radius * 2 * 6 / 10 / 5).min(radius * 2 * 7 / 10 / columns).max(1);
    let text_w = columns * scale;
    let text_h = 5 * scale;
    let (left, top) = ((cx + 1).saturating_sub(text_w / 2), (cy + 1).saturating_sub(text_h / 2));
    for (i, rows) in chars.iter().enumerate() {
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    for sy in 0..scale {
                        for sx in 0..scale {
                            put(left + (i * 4 + col) * scale + sx, top + row * scale + sy, WHITE);
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(rgba: &[u8], w: usize, x: usize, y: usize) -> [u8; 4] {
        let at = (y * w + x) * 4;
        [rgba[at], rgba[at + 1], rgba[at + 2], rgba[at + 3]]
    }

    #[test]
    fn counts_read_as_the_badge_says() {
        assert_eq!(badge_text(0), None);
        assert_eq!(badge_text(1).as_deref(), Some("1"));
        assert_eq!(badge_text(9).as_deref(), Some("9"));
        assert_eq!(badge_text(10).as_deref(), Some("9+"));
    }

    #[test]
    fn nothing_pending_leaves_the_icon_as_it_is() {
        let icon = vec![7u8; 32 * 32 * 4];
        assert_eq!(draw(&icon, 32, 32, 0), icon);
    }

    #[test]
    fn a_pending_count_is_a_red_disc_with_white_strokes_in_the_corner() {
        let (w, h) = (128usize, 128usize);
        let icon = vec![0u8; w * h * 4];
        let drawn = draw(&icon, w as u32, h as u32, 1);
        // The upper left quarter is untouched; the disc's rim is red; the "1" has white strokes.
        assert!(drawn[..(w * 4 * (h / 2))].iter().step_by(4).take(w / 2).all(|&b| b == 0));
        let radius = w * 3 / 10;
        let (cx, cy) = (w - radius - 1, h - radius - 1);
        assert_eq!(pixel(&drawn, w, cx, cy - radius + 2), RED);
        let whites = (0..w * h).filter(|i| pixel(&drawn, w, i % w, i / w) == WHITE).count();
        let reds = (0..w * h).filter(|i| pixel(&drawn, w, i % w, i / w) == RED).count();
        assert!(whites > 0 && reds > whites, "white {whites}, red {reds}");
        // Two glyphs for ten or more: more white than for one.
        let many = draw(&icon, w as u32, h as u32, 12);
        let many_whites = (0..w * h).filter(|i| pixel(&many, w, i % w, i / w) == WHITE).count();
        assert!(many_whites > whites);
    }

    #[test]
    fn a_wrongly_sized_buffer_is_left_alone() {
        let icon = vec![1u8; 10];
        assert_eq!(draw(&icon, 32, 32, 3), icon);
    }
}
