//! Where the graph page draws each entity, and how its view pans and zooms. Pure and
//! deterministic: the same entities and relations always give the same picture, whatever order
//! they arrive in, so the homelab does not reshuffle on every refresh.
//!
//! Entities sit in layers by type: hosts (and clusters) on top, their guests below, services and
//! containers below those, then storage and networks, then everything else. Within a layer an
//! entity follows what hosts it (an LXC under its host, a service under its guest), then its slug.
//! Each entity has a cell of its own on a grid, so no two boxes overlap; a layer wider than
//! [`MAX_PER_ROW`] wraps onto further rows.

use std::collections::{BTreeMap, HashMap};

/// A node's box.
pub const NODE_W: f64 = 168.0;
pub const NODE_H: f64 = 40.0;
/// A grid cell: the box and the gap around it.
pub const CELL_W: f64 = 196.0;
pub const CELL_H: f64 = 96.0;
/// The margin around the drawing.
pub const MARGIN: f64 = 24.0;
/// Cells in one row before a layer wraps.
pub const MAX_PER_ROW: usize = 10;

/// The layer of an entity type, top to bottom.
pub fn layer_of(entity_type: &str) -> usize {
    match entity_type {
        "host" | "cluster" => 0,
        "lxc" | "vm" => 1,
        "service" | "container" => 2,
        "storage" | "network" | "bridge" | "dns-record" | "certificate" => 3,
        _ => 4,
    }
}

/// What hosts `node` through `edge`, if the edge is a hosting one: a host hosts its guests, a
/// service runs on its guest.
fn host_through<'a>(node: &str, (source, rel_type, target): (&'a str, &str, &'a str)) -> Option<&'a str> {
    match rel_type {
        "hosts" if target == node => Some(source),
        "runs-on" if source == node => Some(target),
        _ => None,
    }
}

/// One entity's place: the top-left corner of its box.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub slug: String,
    pub entity_type: String,
    pub x: f64,
    pub y: f64,
}

impl Placed {
    pub fn center(&self) -> (f64, f64) {
        (self.x + NODE_W / 2.0, self.y + NODE_H / 2.0)
    }
}

/// The whole drawing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// Ordered by slug.
    pub nodes: Vec<Placed>,
    pub width: f64,
    pub height: f64,
}

impl Layout {
    pub fn position(&self, slug: &str) -> Option<&Placed> {
        self.nodes.binary_search_by(|p| p.slug.as_str().cmp(slug)).ok().map(|i| &self.nodes[i])
    }
}

/// Lays out `nodes` (slug, type) joined by `edges` (source, type, target). Edges naming an entity
/// that is not among `nodes` are ignored (a filtered-out type).
pub fn layout<'a>(
    nodes: impl IntoIterator<Item = (&'a str, &'a str)>,
    edges: impl IntoIterator<Item = (&'a str, &'a str, &'a str)> + Clone,
) -> Layout {
    // Slug → type; a BTreeMap so everything below walks the nodes in slug order.
    let types: BTreeMap<&str, &str> = nodes.into_iter().collect();
    let mut layers: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (slug, ty) in &types {
        layers.entry(layer_of(ty)).or_default().push(slug);
    }
    let edges: Vec<(&str, &str, &str)> =
        edges.into_iter().filter(|(s, _, t)| types.contains_key(s) && types.contains_key(t)).collect();

    // (row, column) of every entity placed so far, to order each layer below the ones above.
    let mut order: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut rows: Vec<Vec<&str>> = Vec::new();
    for slugs in layers.values() {
        let mut keyed: Vec<((usize, usize), &str)> = slugs
            .iter()
            .map(|slug| {
                let hosts = edges.iter().filter_map(|e| host_through(slug, *e)).filter_map(|h| order.get(h)).min();
                // No host above: stay near any neighbour already placed; else after everything.
                let near = || {
                    edges
                        .iter()
                        .filter_map(|(s, _, t)| match (*s == *slug, *t == *slug) {
                            (true, _) => Some(t),
                            (_, true) => Some(s),
                            _ => None,
                        })
                        .filter_map(|other| order.get(other))
                        .min()
                };
                let key = hosts.or_else(near).copied().unwrap_or((usize::MAX, usize::MAX));
                (key, *slug)
            })
            .collect();
        keyed.sort();
        for chunk in keyed.chunks(MAX_PER_ROW) {
            let row = rows.len();
            for (column, (_, slug)) in chunk.iter().enumerate() {
                order.insert(slug, (row, column));
            }
            rows.push(chunk.iter().map(|(_, slug)| *slug).collect());
        }
    }

    let widest = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut nodes: Vec<Placed> = Vec::with_capacity(types.len());
    for (r, row) in rows.iter().enumerate() {
        // Rows are centred under the widest one.
        let indent = (widest - row.len()) as f64 * CELL_W / 2.0;
        for (c, slug) in row.iter().enumerate() {
            nodes.push(Placed {
                slug: (*slug).to_string(),
                entity_type: types.get(slug).copied().unwrap_or_default().to_string(),
                x: MARGIN + indent + c as f64 * CELL_W + (CELL_W - NODE_W) / 2.0,
                y: MARGIN + r as f64 * CELL_H + (CELL_H - NODE_H) / 2.0,
            });
        }
    }
    nodes.sort_by(|a, b| a.slug.cmp(&b.slug));
    Layout { nodes, width: widest as f64 * CELL_W + 2.0 * MARGIN, height: rows.len() as f64 * CELL_H + 2.0 * MARGIN }
}

/// The longest label that fits a box; longer slugs are cut with an ellipsis (the full slug is in
/// the node's tooltip and detail).
pub const LABEL_CHARS: usize = 20;

/// A slug as it fits in a node's box.
pub fn short_label(slug: &str) -> String {
    if slug.chars().count() <= LABEL_CHARS {
        slug.to_string()
    } else {
        let mut s: String = slug.chars().take(LABEL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// Zoom limits.
pub const MIN_SCALE: f64 = 0.2;
pub const MAX_SCALE: f64 = 4.0;

/// The view onto the drawing: a screen point `p` shows drawing point `(p - offset) / scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub x: f64,
    pub y: f64,
    pub scale: f64,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport { x: 0.0, y: 0.0, scale: 1.0 }
    }
}

impl Viewport {
    /// Moved by a drag of `(dx, dy)` screen pixels.
    pub fn panned(self, dx: f64, dy: f64) -> Viewport {
        Viewport { x: self.x + dx, y: self.y + dy, ..self }
    }

    /// Zoomed by `factor` around the screen point `(cx, cy)`, which stays over the same spot of the
    /// drawing; the scale stays within [`MIN_SCALE`]..=[`MAX_SCALE`].
    pub fn zoomed(self, factor: f64, cx: f64, cy: f64) -> Viewport {
        let scale = (self.scale * factor).clamp(MIN_SCALE, MAX_SCALE);
        let k = scale / self.scale;
        Viewport { x: cx - (cx - self.x) * k, y: cy - (cy - self.y) * k, scale }
    }

    /// The whole drawing fitted into a `w`×`h` screen area (never enlarged past 1:1).
    pub fn fit(layout: &Layout, w: f64, h: f64) -> Viewport {
        if layout.width <= 0.0 || layout.height <= 0.0 || w <= 0.0 || h <= 0.0 {
            return Viewport::default();
        }
        let scale = (w / layout.width).min(h / layout.height).clamp(MIN_SCALE, 1.0);
        Viewport { x: (w - layout.width * scale) / 2.0, y: (h - layout.height * scale) / 2.0, scale }
    }

    /// The SVG `transform` of the drawing's group.
    pub fn transform(&self) -> String {
        format!("translate({:.1} {:.1}) scale({:.3})", self.x, self.y, self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (slug, type) and (from, relation, to).
    type Nodes = Vec<(&'static str, &'static str)>;
    type Edges = Vec<(&'static str, &'static str, &'static str)>;

    fn lab() -> (Nodes, Edges) {
        let nodes = vec![
            ("host:strong", "host"),
            ("host:quiet", "host"),
            ("lxc:caddy", "lxc"),
            ("lxc:gitea", "lxc"),
            ("vm:nas", "vm"),
            ("service:caddy", "service"),
            ("service:gitea", "service"),
            ("storage:tank", "storage"),
            ("network:lan", "network"),
            ("runbook:restart", "runbook"),
        ];
        let edges = vec![
            ("host:quiet", "hosts", "lxc:caddy"),
            ("host:strong", "hosts", "lxc:gitea"),
            ("host:strong", "hosts", "vm:nas"),
            ("service:caddy", "runs-on", "lxc:caddy"),
            ("service:gitea", "runs-on", "lxc:gitea"),
            ("vm:nas", "uses-storage", "storage:tank"),
            ("lxc:caddy", "member-of", "network:lan"),
            ("lxc:gone", "depends-on", "lxc:caddy"),
        ];
        (nodes, edges)
    }

    fn y(l: &Layout, slug: &str) -> f64 {
        l.position(slug).unwrap().y
    }

    fn x(l: &Layout, slug: &str) -> f64 {
        l.position(slug).unwrap().x
    }

    #[test]
    fn the_same_graph_gives_the_same_picture_in_any_order() {
        let (nodes, edges) = lab();
        let first = layout(nodes.clone(), edges.clone());
        assert_eq!(first, layout(nodes.clone(), edges.clone()));
        let (mut rn, mut re) = (nodes, edges);
        rn.reverse();
        re.reverse();
        assert_eq!(first, layout(rn, re));
        assert_eq!(first.nodes.len(), 10);
    }

    #[test]
    fn no_two_boxes_overlap() {
        let nodes: Vec<(String, &str)> = (0..57)
            .map(|i| (format!("lxc:g{i:02}"), "lxc"))
            .chain((0..5).map(|i| (format!("host:h{i}"), "host")))
            .chain((0..23).map(|i| (format!("service:s{i:02}"), "service")))
            .collect();
        let l = layout(nodes.iter().map(|(s, t)| (s.as_str(), *t)), Vec::new());
        assert_eq!(l.nodes.len(), 85);
        for (i, a) in l.nodes.iter().enumerate() {
            assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + NODE_W <= l.width && a.y + NODE_H <= l.height, "{a:?}");
            for b in &l.nodes[i + 1..] {
                let apart = a.x + NODE_W <= b.x || b.x + NODE_W <= a.x || a.y + NODE_H <= b.y || b.y + NODE_H <= a.y;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
        // 57 guests wrap onto six rows of at most ten.
        let guest_rows: std::collections::BTreeSet<u64> =
            l.nodes.iter().filter(|p| p.entity_type == "lxc").map(|p| p.y as u64).collect();
        assert_eq!(guest_rows.len(), 6);
    }

    #[test]
    fn layers_follow_hosting() {
        let (nodes, edges) = lab();
        let l = layout(nodes, edges);
        assert_eq!(y(&l, "host:quiet"), y(&l, "host:strong"));
        assert!(y(&l, "host:strong") < y(&l, "lxc:caddy"));
        assert_eq!(y(&l, "lxc:caddy"), y(&l, "vm:nas"));
        assert!(y(&l, "vm:nas") < y(&l, "service:caddy"));
        assert!(y(&l, "service:caddy") < y(&l, "storage:tank"));
        assert!(y(&l, "storage:tank") < y(&l, "runbook:restart"));
        // Guests follow their hosts' order (quiet before strong), not their own slugs.
        assert!(x(&l, "host:quiet") < x(&l, "host:strong"));
        assert!(x(&l, "lxc:caddy") < x(&l, "lxc:gitea"));
        assert!(x(&l, "lxc:gitea") < x(&l, "vm:nas"));
        assert!(x(&l, "service:caddy") < x(&l, "service:gitea"));
        // Storage and networks sit near what uses them: the network of caddy before the NAS's pool.
        assert!(x(&l, "network:lan") < x(&l, "storage:tank"));
    }

    #[test]
    fn long_slugs_are_cut_to_fit() {
        assert_eq!(short_label("lxc:caddy"), "lxc:caddy");
        let cut = short_label("service:a-very-long-service-name");
        assert_eq!(cut.chars().count(), LABEL_CHARS);
        assert_eq!(cut, "service:a-very-long…");
        assert_eq!(short_label("lxc:ééééééééééééééééééé"), "lxc:ééééééééééééééé…");
    }

    #[test]
    fn an_empty_graph_is_an_empty_picture() {
        let l = layout(Vec::new(), Vec::new());
        assert!(l.nodes.is_empty());
        assert_eq!((l.width, l.height), (2.0 * MARGIN, 2.0 * MARGIN));
        assert_eq!(Viewport::fit(&l, 800.0, 600.0).scale, 1.0);
    }

    #[test]
    fn zooming_keeps_the_point_under_the_cursor() {
        let v = Viewport { x: 10.0, y: -20.0, scale: 1.0 };
        let under = |v: Viewport, cx: f64, cy: f64| ((cx - v.x) / v.scale, (cy - v.y) / v.scale);
        let before = under(v, 300.0, 200.0);
        let z = v.zoomed(1.5, 300.0, 200.0);
        let after = under(z, 300.0, 200.0);
        assert!((before.0 - after.0).abs() < 1e-9 && (before.1 - after.1).abs() < 1e-9);
        assert_eq!(z.scale, 1.5);
        assert_eq!(v.zoomed(100.0, 0.0, 0.0).scale, MAX_SCALE);
        assert_eq!(v.zoomed(0.001, 0.0, 0.0).scale, MIN_SCALE);
        assert_eq!(v.panned(5.0, 7.0), Viewport { x: 15.0, y: -13.0, scale: 1.0 });
        assert_eq!(z.transform(), "translate(-135.0 -130.0) scale(1.500)");
    }

    #[test]
    fn fitting_shrinks_a_large_drawing_and_centres_it() {
        let l = Layout { nodes: Vec::new(), width: 2000.0, height: 500.0 };
        let v = Viewport::fit(&l, 1000.0, 500.0);
        assert_eq!(v.scale, 0.5);
        assert_eq!((v.x, v.y), (0.0, 125.0));
    }
}
