//! A host's connection test: one line per check, ✓ or ✗, what was found and, when it failed,
//! how to fix it.

use leptos::prelude::*;
use nomos_types::HostTest;

use crate::discovery_view::check_label;

#[component]
pub fn HostChecks(test: HostTest) -> impl IntoView {
    let summary = match (test.ok, test.proxmox) {
        (true, true) => "Ready for discovery.".to_string(),
        (true, false) => "Reachable: a plain Linux host (no Proxmox to discover).".to_string(),
        (false, _) => "Not ready yet: fix the first ✗ below, then test again.".to_string(),
    };
    let rows = test
        .checks
        .into_iter()
        .map(|c| {
            let fix = c.fix.filter(|_| !c.ok).map(|f| view! { <div class="check-fix">"Fix: " {f}</div> });
            view! {
                <li class="check" class:failed=!c.ok data-testid="host-check" data-check=c.check.clone() data-ok=c.ok.to_string()>
                    <span class="check-mark" aria-label=if c.ok { "passed" } else { "failed" }>
                        {if c.ok { "✓" } else { "✗" }}
                    </span>
                    <div>
                        <strong>{check_label(&c.check)}</strong>
                        " "
                        <span class="muted">{c.detail}</span>
                        {fix}
                    </div>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="host-test" data-testid="host-checks" data-ok=test.ok.to_string()>
            <p class=if test.ok { "ok" } else { "error" } data-testid="host-test-summary">{summary}</p>
            <ul class="checks">{rows}</ul>
        </div>
    }
}
