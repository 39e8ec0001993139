//! The homelab as a picture (`/graph`): every entity placed by [`crate::graph_layout`] and drawn
//! as SVG with its current relations; drag to pan, the wheel or the buttons to zoom, a type
//! filter, and the clicked entity's detail beside it. Re-read when the graph changes.

use std::collections::BTreeSet;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::{GraphSnapshot, Relation};

use crate::components::{answer, BlastRadiusView, EmptyGraph, EntityFacts};
use crate::events::Topic;
use crate::graph_layout::{layout, short_label, Layout, Viewport, NODE_H, NODE_W};
use crate::live::use_live;
use crate::steady::steady;
use crate::{ipc, routes};

/// One wheel notch or button press zooms by this factor.
const ZOOM_STEP: f64 = 1.2;
/// A press that moves less than this many pixels is a click, not a drag.
const CLICK_SLOP: f64 = 4.0;

#[component]
pub fn GraphPage() -> impl IntoView {
    let live = use_live();
    let graph = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        async move { ((), ipc::graph_snapshot().await) }
    }));
    let selected = RwSignal::new(None::<String>);
    view! {
        <div class="graph-page">
            {move || {
                answer(
                    graph.get(),
                    "Drawing the graph…",
                    |g| {
                        if g.nodes.is_empty() {
                            view! { <EmptyGraph /> }.into_any()
                        } else {
                            view! { <GraphCanvas graph=graph selected=selected /> }.into_any()
                        }
                    },
                )
            }}
            {move || {
                selected
                    .get()
                    .map(|slug| {
                        view! {
                            <aside class="graph-detail detail-pane" aria-label="Selected entity">
                                <button
                                    class="close"
                                    aria-label="Close"
                                    data-testid="graph-detail-close"
                                    on:click=move |_| selected.set(None)
                                >
                                    "×"
                                </button>
                                <NodeDetail slug=slug />
                            </aside>
                        }
                    })
            }}
        </div>
    }
}

/// The drawing. Built once per non-empty graph; the snapshot signal keeps it current without
/// rebuilding, so the viewport and the filter survive refreshes.
#[component]
fn GraphCanvas(
    graph: Signal<Option<Result<GraphSnapshot, nomos_types::IpcError>>>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let snapshot = Memo::new(move |_| {
        graph.get().and_then(Result::ok).unwrap_or(GraphSnapshot { nodes: Vec::new(), edges: Vec::new() })
    });
    let hidden = RwSignal::new(BTreeSet::<String>::new());
    let types = Memo::new(move |_| {
        snapshot.with(|s| s.nodes.iter().map(|n| n.entity.entity_type.clone()).collect::<BTreeSet<_>>())
    });
    let drawing = Memo::new(move |_| {
        let hidden = hidden.get();
        snapshot.with(|s| {
            layout(
                s.nodes
                    .iter()
                    .filter(|n| !hidden.contains(&n.entity.entity_type))
                    .map(|n| (n.entity.slug.as_str(), n.entity.entity_type.as_str())),
                s.edges.iter().map(|e| (e.source.as_str(), e.rel_type.as_str(), e.target.as_str())),
            )
        })
    });

    let view_port = RwSignal::new(Viewport::default());
    let svg_ref = NodeRef::<leptos::svg::Svg>::new();
    let frame_ref = NodeRef::<html::Div>::new();
    let fit = move || {
        if let Some(frame) = frame_ref.get_untracked() {
            let (w, h) = (f64::from(frame.client_width()), f64::from(frame.client_height()));
            drawing.with_untracked(|d| view_port.set(Viewport::fit(d, w, h)));
        }
    };
    // Fitted once the frame has its size; afterwards the operator's pan and zoom are kept.
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        frame_ref.track();
        fit();
        frame_ref.get_untracked().is_some()
    });

    // A drag: where it started (screen) and the viewport then; whether it moved past a click.
    let drag = RwSignal::new(None::<(f64, f64, Viewport)>);
    let dragged = RwSignal::new(false);
    let on_down = move |e: ev::PointerEvent| {
        drag.set(Some((f64::from(e.client_x()), f64::from(e.client_y()), view_port.get_untracked())));
        dragged.set(false);
    };
    let on_move = move |e: ev::PointerEvent| {
        if let Some((x0, y0, start)) = drag.get_untracked() {
            let (dx, dy) = (f64::from(e.client_x()) - x0, f64::from(e.client_y()) - y0);
            if dx.abs() + dy.abs() > CLICK_SLOP {
                dragged.set(true);
            }
            if dragged.get_untracked() {
                view_port.set(start.panned(dx, dy));
            }
        }
    };
    let on_up = move |_: ev::PointerEvent| drag.set(None);
    let centre = move || {
        frame_ref
            .get_untracked()
            .map(|f| (f64::from(f.client_width()) / 2.0, f64::from(f.client_height()) / 2.0))
            .unwrap_or((0.0, 0.0))
    };
    let on_wheel = move |e: ev::WheelEvent| {
        e.prevent_default();
        let factor = if e.delta_y() < 0.0 { ZOOM_STEP } else { 1.0 / ZOOM_STEP };
        let (cx, cy) = match svg_ref.get_untracked() {
            Some(svg) => {
                let rect = svg.get_bounding_client_rect();
                (f64::from(e.client_x()) - rect.left(), f64::from(e.client_y()) - rect.top())
            }
            None => centre(),
        };
        view_port.update(|v| *v = v.zoomed(factor, cx, cy));
    };
    let zoom = move |factor: f64| {
        let (cx, cy) = centre();
        view_port.update(|v| *v = v.zoomed(factor, cx, cy));
    };
    // j/k (or arrows) walk the drawn entities in slug order, Escape closes the detail.
    let on_key = move |e: ev::KeyboardEvent| {
        let step: isize = match e.key().as_str() {
            "j" | "ArrowDown" | "ArrowRight" => 1,
            "k" | "ArrowUp" | "ArrowLeft" => -1,
            "Escape" => {
                selected.set(None);
                return;
            }
            _ => return,
        };
        e.prevent_default();
        let next = drawing.with_untracked(|d| step_selection(d, selected.get_untracked().as_deref(), step));
        selected.set(next);
    };

    let edges = move || {
        let d = drawing.get();
        snapshot.with(|s| {
            s.edges
                .iter()
                .filter_map(|e| {
                    let (a, b) = (d.position(&e.source)?, d.position(&e.target)?);
                    let ((x1, y1), (x2, y2)) = (a.center(), b.center());
                    let title = format!("{} {} {}", e.source, e.rel_type, e.target);
                    Some(view! {
                        <line class=format!("edge rel-{}", e.rel_type) x1=x1 y1=y1 x2=x2 y2=y2>
                            <title>{title}</title>
                        </line>
                    })
                })
                .collect_view()
        })
    };
    let nodes = move || {
        let d: Layout = drawing.get();
        snapshot.with(|s| {
            d.nodes
                .into_iter()
                .map(|p| {
                    let health = s
                        .nodes
                        .binary_search_by(|n| n.entity.slug.as_str().cmp(&p.slug))
                        .ok()
                        .map(|i| s.nodes[i].status.health.to_string())
                        .unwrap_or_default();
                    let slug = p.slug.clone();
                    let is_selected = {
                        let slug = slug.clone();
                        move || selected.get().as_deref() == Some(slug.as_str())
                    };
                    let label = short_label(&p.slug);
                    let on_click = {
                        let slug = slug.clone();
                        move |_| {
                            if !dragged.get_untracked() {
                                selected.set(Some(slug.clone()));
                            }
                        }
                    };
                    view! {
                        <g
                            class=format!("node type-{} health-{health}", p.entity_type)
                            class:selected=is_selected
                            transform=format!("translate({:.1} {:.1})", p.x, p.y)
                            data-testid="graph-node"
                            data-slug=slug.clone()
                            data-type=p.entity_type.clone()
                            on:click=on_click
                        >
                            <title>{format!("{slug} ({})", p.entity_type)}</title>
                            <rect width=NODE_W height=NODE_H rx="8" />
                            <circle class="health" cx="14" cy=NODE_H / 2.0 r="4.5" />
                            <text x="26" y=NODE_H / 2.0 + 4.0>{label}</text>
                        </g>
                    }
                })
                .collect_view()
        })
    };
    let counts = move || {
        let shown = drawing.with(|d| d.nodes.len());
        let total = snapshot.with(|s| s.nodes.len());
        if shown == total {
            format!("{total} entities")
        } else {
            format!("{shown} of {total} entities")
        }
    };

    view! {
        <section class="graph-main">
            <div class="graph-toolbar">
                <div class="type-filter" role="group" aria-label="Types shown" data-testid="graph-types">
                    {move || {
                        types
                            .get()
                            .into_iter()
                            .map(|t| {
                                let ty = StoredValue::new(t.clone());
                                let shown = move || !hidden.with(|h| ty.with_value(|t| h.contains(t)));
                                let toggle = {
                                    let t = t.clone();
                                    move |_| {
                                        hidden.update(|h| {
                                            if !h.remove(&t) {
                                                h.insert(t.clone());
                                            }
                                        })
                                    }
                                };
                                view! {
                                    <label class="chip" class:off=move || !shown()>
                                        <input
                                            type="checkbox"
                                            prop:checked=shown
                                            on:change=toggle
                                            data-testid=format!("graph-type-{t}")
                                        />
                                        {t.clone()}
                                    </label>
                                }
                            })
                            .collect_view()
                    }}
                </div>
                <span class="muted count" data-testid="graph-count">{counts}</span>
                <div class="zoom">
                    <button aria-label="Zoom in" data-testid="zoom-in" on:click=move |_| zoom(ZOOM_STEP)>"+"</button>
                    <button aria-label="Zoom out" data-testid="zoom-out" on:click=move |_| zoom(1.0 / ZOOM_STEP)>
                        "−"
                    </button>
                    <button aria-label="Fit to the window" data-testid="zoom-fit" on:click=move |_| fit()>"Fit"</button>
                </div>
            </div>
            <div class="graph-frame" node_ref=frame_ref tabindex="0" on:keydown=on_key aria-label="Homelab graph">
                <svg
                    node_ref=svg_ref
                    class="graph-svg"
                    class:dragging=move || drag.get().is_some()
                    data-testid="graph"
                    on:pointerdown=on_down
                    on:pointermove=on_move
                    on:pointerup=on_up
                    on:pointerleave=on_up
                    on:wheel=on_wheel
                >
                    <g transform=move || view_port.get().transform()>
                        <g class="edges">{edges}</g>
                        <g class="nodes">{nodes}</g>
                    </g>
                </svg>
            </div>
        </section>
    }
}

/// The entity `step` places after (or before) `current` among the drawn ones, wrapping around;
/// the first (or last) one when none is selected.
pub(crate) fn step_selection(drawing: &Layout, current: Option<&str>, step: isize) -> Option<String> {
    let n = drawing.nodes.len() as isize;
    if n == 0 {
        return None;
    }
    let at = current.and_then(|c| drawing.nodes.iter().position(|p| p.slug == c));
    let next = match at {
        Some(i) => (i as isize + step).rem_euclid(n),
        None if step >= 0 => 0,
        None => n - 1,
    };
    Some(drawing.nodes[next as usize].slug.clone())
}

/// The clicked entity: what is known about it, its relations with their history, its blast radius.
#[component]
fn NodeDetail(slug: String) -> impl IntoView {
    let live = use_live();
    let slug = StoredValue::new(slug);
    let explain = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get_value();
        async move { (slug.clone(), ipc::explain_entity(slug).await) }
    }));
    let history = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get_value();
        async move { (slug.clone(), ipc::entity_relations(slug, true).await) }
    }));
    let blast = steady(LocalResource::new(move || {
        live.track(Topic::Graph);
        let slug = slug.get_value();
        async move { (slug.clone(), ipc::blast_radius(slug, None).await) }
    }));
    view! {
        <article class="detail" data-testid="graph-detail">
            {move || answer(explain.get(), "Loading…", |x| view! { <EntityFacts explain=x /> }.into_any())}
            <h3>"Relation history"</h3>
            {move || answer(history.get(), "Loading…", |rels| view! { <RelationHistory relations=rels /> }.into_any())}
            <h3>"Blast radius"</h3>
            {move || answer(blast.get(), "Computing…", |b| view! { <BlastRadiusView blast=b /> }.into_any())}
            <p>
                <A href=routes::entity(&slug.get_value()) attr:class="link">"Open in the entity list"</A>
            </p>
        </article>
    }
}

/// Relations that have ended, newest first, with when they held.
#[component]
fn RelationHistory(relations: Vec<Relation>) -> impl IntoView {
    let mut ended: Vec<Relation> = relations.into_iter().filter(|r| r.valid_to.is_some()).collect();
    ended.sort_by(|a, b| b.valid_to.cmp(&a.valid_to));
    if ended.is_empty() {
        return view! { <p class="muted" data-testid="relation-history">"No ended relations."</p> }.into_any();
    }
    let rows = ended
        .into_iter()
        .map(|r| {
            let when = format!("{} → {}", r.valid_from, r.valid_to.unwrap_or_default());
            view! {
                <li>
                    <span class="rel-label">{r.label}</span>
                    <A href=routes::entity(&r.other.slug) attr:class="link">{r.other.slug.to_string()}</A>
                    <span class="path muted">{when}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="relations" data-testid="relation-history">{rows}</ul> }.into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_walk_the_drawn_entities_and_wrap() {
        let d = layout([("host:a", "host"), ("lxc:b", "lxc"), ("lxc:c", "lxc")], Vec::new());
        assert_eq!(step_selection(&d, None, 1).as_deref(), Some("host:a"));
        assert_eq!(step_selection(&d, None, -1).as_deref(), Some("lxc:c"));
        assert_eq!(step_selection(&d, Some("host:a"), 1).as_deref(), Some("lxc:b"));
        assert_eq!(step_selection(&d, Some("lxc:c"), 1).as_deref(), Some("host:a"));
        assert_eq!(step_selection(&d, Some("host:a"), -1).as_deref(), Some("lxc:c"));
        // A selection that is filtered out starts again from the first.
        assert_eq!(step_selection(&d, Some("vm:gone"), 1).as_deref(), Some("host:a"));
        assert_eq!(step_selection(&Layout::default(), None, 1), None);
    }
}
