//! Markdown from the model or a note, rendered safely: parsed into a small tree of the elements
//! allowed here and built as DOM nodes, never as HTML text. Raw HTML in the source is shown as
//! text, links only open http, https and mailto, images show their description.

use leptos::prelude::*;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

/// An element the renderer may build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum El {
    P,
    H(u8),
    Quote,
    Ul,
    Ol,
    Li,
    Em,
    Strong,
    Del,
    Table,
    Tr,
    Td,
    /// Anything else the parser knows: its content, without markup.
    Span,
}

/// The rendered tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Text(String),
    Code(String),
    Break,
    Rule,
    CodeBlock {
        lang: Option<String>,
        code: String,
    },
    El {
        el: El,
        children: Vec<Node>,
    },
    /// `href` is `None` for a link to anywhere but http(s) or mailto: shown as its text.
    Link {
        href: Option<String>,
        children: Vec<Node>,
    },
}

enum Frame {
    El(El),
    Link(Option<String>),
    CodeBlock(Option<String>),
}

/// The link target if it may be opened.
pub fn safe_href(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    ["http://", "https://", "mailto:"].iter().any(|p| lower.starts_with(p)).then(|| url.to_string())
}

/// Parses markdown into the allowed tree.
pub fn parse(source: &str) -> Vec<Node> {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    let mut stack: Vec<(Frame, Vec<Node>)> = Vec::new();
    let mut root: Vec<Node> = Vec::new();
    for event in Parser::new_ext(source, options) {
        let node = match event {
            Event::Start(tag) => {
                let frame = match tag {
                    Tag::Paragraph => Frame::El(El::P),
                    Tag::Heading { level, .. } => Frame::El(El::H(level as u8)),
                    Tag::BlockQuote(_) => Frame::El(El::Quote),
                    Tag::CodeBlock(CodeBlockKind::Fenced(lang)) => {
                        let lang = lang.split_whitespace().next().map(str::to_string);
                        Frame::CodeBlock(lang)
                    }
                    Tag::CodeBlock(CodeBlockKind::Indented) => Frame::CodeBlock(None),
                    Tag::List(Some(_)) => Frame::El(El::Ol),
                    Tag::List(None) => Frame::El(El::Ul),
                    Tag::Item => Frame::El(El::Li),
                    Tag::Emphasis => Frame::El(El::Em),
                    Tag::Strong => Frame::El(El::Strong),
                    Tag::Strikethrough => Frame::El(El::Del),
                    Tag::Table(_) => Frame::El(El::Table),
                    Tag::TableHead | Tag::TableRow => Frame::El(El::Tr),
                    Tag::TableCell => Frame::El(El::Td),
                    Tag::Link { dest_url, .. } => Frame::Link(safe_href(&dest_url)),
                    // Images, HTML blocks and the rest: their text only.
                    _ => Frame::El(El::Span),
                };
                stack.push((frame, Vec::new()));
                continue;
            }
            Event::End(_) => {
                let Some((frame, children)) = stack.pop() else { continue };
                match frame {
                    Frame::El(el) => Node::El { el, children },
                    Frame::Link(href) => Node::Link { href, children },
                    Frame::CodeBlock(lang) => {
                        let code = children
                            .into_iter()
                            .map(|n| match n {
                                Node::Text(t) => t,
                                _ => String::new(),
                            })
                            .collect();
                        Node::CodeBlock { lang, code }
                    }
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => Node::Text(t.into_string()),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => Node::Code(t.into_string()),
            Event::SoftBreak => Node::Text(" ".into()),
            Event::HardBreak => Node::Break,
            Event::Rule => Node::Rule,
            Event::TaskListMarker(done) => Node::Text(if done { "☑ " } else { "☐ " }.into()),
            Event::FootnoteReference(t) => Node::Text(format!("[{t}]")),
        };
        match stack.last_mut() {
            Some((_, children)) => children.push(node),
            None => root.push(node),
        }
    }
    // An unbalanced parse (it should not happen) keeps its text.
    while let Some((_, children)) = stack.pop() {
        root.extend(children);
    }
    root
}

/// Rendered markdown.
#[component]
pub fn Markdown(#[prop(into)] source: String) -> impl IntoView {
    view! { <div class="markdown">{render(parse(&source))}</div> }
}

fn render(nodes: Vec<Node>) -> AnyView {
    nodes.into_iter().map(render_node).collect_view().into_any()
}

fn render_node(node: Node) -> AnyView {
    match node {
        Node::Text(t) => t.into_any(),
        Node::Code(t) => view! { <code>{t}</code> }.into_any(),
        Node::Break => view! { <br /> }.into_any(),
        Node::Rule => view! { <hr /> }.into_any(),
        Node::CodeBlock { lang, code } => view! { <CodeBlock lang=lang code=code /> }.into_any(),
        Node::Link { href: Some(href), children } => {
            view! { <a href=href target="_blank" rel="noopener noreferrer">{render(children)}</a> }.into_any()
        }
        Node::Link { href: None, children } => {
            view! { <span class="link-refused">{render(children)}</span> }.into_any()
        }
        Node::El { el, children } => {
            let inner = render(children);
            match el {
                El::P => view! { <p>{inner}</p> }.into_any(),
                El::H(1) | El::H(2) => view! { <h3>{inner}</h3> }.into_any(),
                El::H(3) => view! { <h4>{inner}</h4> }.into_any(),
                El::H(_) => view! { <h5>{inner}</h5> }.into_any(),
                El::Quote => view! { <blockquote>{inner}</blockquote> }.into_any(),
                El::Ul => view! { <ul>{inner}</ul> }.into_any(),
                El::Ol => view! { <ol>{inner}</ol> }.into_any(),
                El::Li => view! { <li>{inner}</li> }.into_any(),
                El::Em => view! { <em>{inner}</em> }.into_any(),
                El::Strong => view! { <strong>{inner}</strong> }.into_any(),
                El::Del => view! { <del>{inner}</del> }.into_any(),
                El::Table => view! { <table class="md-table"><tbody>{inner}</tbody></table> }.into_any(),
                El::Tr => view! { <tr>{inner}</tr> }.into_any(),
                El::Td => view! { <td>{inner}</td> }.into_any(),
                El::Span => view! { <span>{inner}</span> }.into_any(),
            }
        }
    }
}

/// A code block with its language and a copy button.
#[component]
pub fn CodeBlock(lang: Option<String>, code: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let text = code.clone();
    let copy = move |_| {
        copy_to_clipboard(&text);
        copied.set(true);
    };
    view! {
        <div class="code-block">
            <div class="code-bar">
                <span class="muted">{lang.unwrap_or_default()}</span>
                <button class="link" data-testid="copy-code" on:click=copy>
                    {move || if copied.get() { "copied" } else { "copy" }}
                </button>
            </div>
            <pre><code>{code}</code></pre>
        </div>
    }
}

/// `navigator.clipboard.writeText(text)`; a webview without a clipboard leaves it.
fn copy_to_clipboard(text: &str) {
    use wasm_bindgen::{JsCast, JsValue};
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let clipboard = get(&js_sys::global(), "navigator").and_then(|n| get(&n, "clipboard"));
    if let Some(clipboard) = clipboard {
        if let Some(f) = get(&clipboard, "writeText").and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
            if let Err(e) = f.call1(&clipboard, &JsValue::from_str(text)) {
                leptos::logging::warn!("copy failed: {e:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(nodes: &[Node]) -> String {
        nodes
            .iter()
            .map(|n| match n {
                Node::Text(t) | Node::Code(t) => t.clone(),
                Node::CodeBlock { code, .. } => code.clone(),
                Node::El { children, .. } | Node::Link { children, .. } => text_of(children),
                Node::Break | Node::Rule => String::new(),
            })
            .collect()
    }

    #[test]
    fn raw_html_is_text() {
        let nodes = parse("hello <script>alert(1)</script> **bold**\n\n<div onclick=x>block</div>");
        let all = text_of(&nodes);
        assert!(all.contains("<script>alert(1)</script>"), "{all}");
        assert!(all.contains("<div onclick=x>"), "{all}");
        // The only elements are from the allowed set; there is no way to express an HTML element.
        assert!(matches!(&nodes[0], Node::El { el: El::P, .. }));
    }

    #[test]
    fn only_web_and_mail_links_open() {
        let nodes = parse(
            "[a](https://example.org) [b](javascript:alert(1)) [c](JavaScript:x) [d](mailto:me@x.org) [e](/local) [f](data:text/html,x)",
        );
        let mut hrefs = Vec::new();
        fn walk(nodes: &[Node], out: &mut Vec<(Option<String>, String)>) {
            for n in nodes {
                match n {
                    Node::Link { href, children } => out.push((href.clone(), text_of(children))),
                    Node::El { children, .. } => walk(children, out),
                    _ => {}
                }
            }
        }
        walk(&nodes, &mut hrefs);
        assert_eq!(
            hrefs,
            vec![
                (Some("https://example.org".into()), "a".into()),
                (None, "b".into()),
                (None, "c".into()),
                (Some("mailto:me@x.org".into()), "d".into()),
                (None, "e".into()),
                (None, "f".into()),
            ]
        );
    }

    #[test]
    fn images_show_their_description_only() {
        let nodes = parse("![the rack](https://example.org/x.png)");
        assert_eq!(text_of(&nodes), "the rack");
        assert!(!format!("{nodes:?}").contains("x.png"));
    }

    #[test]
    fn code_keeps_its_text_nested_fences_included() {
        let nodes = parse("````md\n```sh\nrm -rf / <b>\n```\n````\n\nrun `pct list`");
        assert_eq!(nodes[0], Node::CodeBlock { lang: Some("md".into()), code: "```sh\nrm -rf / <b>\n```\n".into() });
        let Node::El { el: El::P, children } = &nodes[1] else { panic!("{nodes:?}") };
        assert_eq!(children[1], Node::Code("pct list".into()));
    }

    #[test]
    fn lists_and_emphasis_nest() {
        let nodes = parse("- one *two*\n- three");
        let Node::El { el: El::Ul, children } = &nodes[0] else { panic!("{nodes:?}") };
        assert_eq!(children.len(), 2);
        assert_eq!(text_of(&nodes), "one twothree");
    }
}
