//! The review of a discovery before it is applied: what was read, the counts, then the changes
//! grouped by kind with their attributes and the relations that start or end, and the warnings.

use leptos::prelude::*;
use nomos_types::discovery::DiffItem;
use nomos_types::DiscoveryDiff;

use crate::discovery_view::{
    attr_line, counts_line, edge_line, group_changes, item_summary, kind_label, review_heading,
};

#[component]
pub fn DiscoveryReview(diff: DiscoveryDiff) -> impl IntoView {
    let groups = group_changes(&diff)
        .into_iter()
        .map(|(kind, items)| {
            let count = items.len();
            let rows = items.into_iter().map(|i| view! { <ReviewItem item=i.clone() /> }).collect_view();
            view! {
                <section class="review-group" data-testid="review-group" data-kind=kind.as_str()>
                    <h4>{kind_label(kind)} " " <span class="muted">{count}</span></h4>
                    <ul class="review-items">{rows}</ul>
                </section>
            }
        })
        .collect_view();
    let warnings = (!diff.warnings.is_empty()).then(|| {
        let lines = diff.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view();
        view! { <ul class="warnings" data-testid="review-warnings">{lines}</ul> }
    });
    let nothing = diff.is_empty().then(|| {
        view! { <p class="muted" data-testid="review-nothing">"The graph already matches the cluster: nothing to apply."</p> }
    });
    view! {
        <div class="review" data-testid="discovery-review" data-cluster=diff.cluster.clone()>
            <p class="muted" data-testid="review-heading">{review_heading(&diff)}</p>
            <p class="review-counts" data-testid="review-counts">{counts_line(&diff.counts)}</p>
            {warnings}
            {nothing}
            {groups}
        </div>
    }
}

#[component]
fn ReviewItem(item: DiffItem) -> impl IntoView {
    let summary = item_summary(&item);
    let details = item
        .attributes
        .iter()
        .map(|a| view! { <li class="attr">{attr_line(a)}</li> }.into_any())
        .chain(item.edges.iter().map(|e| view! { <li class="edge-change">{edge_line(e)}</li> }.into_any()))
        .collect::<Vec<_>>();
    let more = (!details.is_empty()).then(|| {
        let n = details.len();
        view! {
            <details class="review-details">
                <summary class="muted">{format!("{n} detail{}", if n == 1 { "" } else { "s" })}</summary>
                <ul>{details}</ul>
            </details>
        }
    });
    view! {
        <li
            class="review-item"
            data-testid="review-item"
            data-slug=item.slug.clone()
            data-kind=item.kind.as_str()
            data-vmid=item.vmid.map(|v| v.to_string())
        >
            <code class="slug">{item.slug.clone()}</code>
            " "
            <span class="muted">{summary}</span>
            {more}
        </li>
    }
}
