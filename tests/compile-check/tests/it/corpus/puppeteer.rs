//! The Puppeteer port (`tests/corpus/puppeteer.yaml`) served by a small in-memory browser,
//! held to its generated gauntlet: screenshots are real PNG bytes (a 1x1 image) that the
//! client receives as an image content block, with a resource link to them by name.
//!
//! The browser knows two pages: `https://example.com/login` ("Sign in", with the fields
//! `#email`, the select `#language` set to `en`, the button `#submit` leading to
//! `https://example.com/home`, and the menu `#account`), and `https://example.com/home`.
//! Any other host fails to load.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use toolspec_compile_check::corpus::puppeteer::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::content::{Media, ResourceLink};
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::store::Work;

/// A 1x1 transparent PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// What the page holds: its address and the values of its form fields.
#[derive(Clone)]
struct Page {
    url: String,
    values: BTreeMap<String, String>,
}

/// An in-memory browser with one page. Changes happen when their unit of work commits.
pub struct Browser {
    page: Arc<Mutex<Page>>,
}

fn login_fields() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("#email".to_owned(), String::new()),
        ("#language".to_owned(), "en".to_owned()),
    ])
}

fn title_of(url: &str) -> Option<&'static str> {
    match url {
        "https://example.com/login" => Some("Sign in"),
        "https://example.com/home" => Some("Home"),
        "about:blank" => Some(""),
        _ => None,
    }
}

/// A screenshot's name as a URI part: any name is taken, as by the original, and what a URI
/// cannot hold (a space, `/`, `#`) is percent-encoded.
fn escaped(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl Browser {
    /// A browser on `about:blank`.
    pub fn demo() -> Self {
        Browser {
            page: Arc::new(Mutex::new(Page {
                url: "about:blank".into(),
                values: BTreeMap::new(),
            })),
        }
    }

    /// The page now; a fresh browser opens the sign-in page first, as the examples assume.
    fn page(&self) -> Page {
        let mut page = self.page.lock().unwrap();
        if page.url == "about:blank" {
            page.url = "https://example.com/login".into();
            page.values = login_fields();
        }
        page.clone()
    }

    fn element(&self, selector: &str) -> Result<(), ToolError> {
        let page = self.page();
        let known = page.values.contains_key(selector)
            || (page.url.ends_with("/login") && ["#submit", "#account"].contains(&selector));
        if known {
            Ok(())
        } else {
            Err(PuppeteerError::ElementNotFound {
                selector: selector.into(),
            }
            .into())
        }
    }

    fn set(&self, work: &Work, change: impl FnOnce(&mut Page) + Send + 'static) {
        let page = Arc::clone(&self.page);
        work.on_commit(move || change(&mut page.lock().unwrap()));
    }
}

impl PuppeteerTools for Browser {
    async fn puppeteer_navigate(
        &self,
        input: PuppeteerNavigateInput,
        work: Work,
    ) -> Result<PuppeteerNavigateOutput, ToolError> {
        let wants_no_sandbox = input.launch_options.as_ref().is_some_and(|o| {
            o.get("args")
                .and_then(|a| a.as_array())
                .is_some_and(|a| a.iter().any(|x| x == "--no-sandbox"))
        });
        if wants_no_sandbox && !input.allow_dangerous {
            return Err(PuppeteerError::DangerousLaunchOptions {
                options: "--no-sandbox".into(),
            }
            .into());
        }
        let Some(title) = title_of(&input.url) else {
            return Err(PuppeteerError::NavigationFailed {
                url: input.url,
                reason: "net::ERR_NAME_NOT_RESOLVED".into(),
            }
            .into());
        };
        let previous = self.page.lock().unwrap().url.clone();
        let url = input.url.clone();
        self.set(&work, move |page| {
            page.values = if url.ends_with("/login") {
                login_fields()
            } else {
                BTreeMap::new()
            };
            page.url = url;
        });
        Ok(PuppeteerNavigateOutput {
            url: input.url,
            title: title.into(),
            previous_url: previous,
        })
    }

    async fn puppeteer_screenshot(
        &self,
        input: PuppeteerScreenshotInput,
    ) -> Result<PuppeteerScreenshotOutput, ToolError> {
        if let Some(selector) = &input.selector {
            self.element(selector)?;
        }
        let mut link =
            ResourceLink::new(format!("screenshot://{}", escaped(&input.name)), input.name);
        link.mime_type = Some("image/png".into());
        // `encoded` sends the picture as a data URI in the result, as the original's text.
        let png = Media::image(PNG, "image/png");
        let (image, data_uri) = if input.encoded {
            (None, Some(format!("data:image/png;base64,{}", png.data)))
        } else {
            (Some(png), None)
        };
        Ok(PuppeteerScreenshotOutput {
            image,
            data_uri,
            screenshot: link,
            width: input.width,
            height: input.height,
        })
    }

    async fn preview_puppeteer_click(
        &self,
        input: PuppeteerClickInput,
    ) -> Result<PuppeteerClickPreview, ToolError> {
        self.element(&input.selector)?;
        Ok(PuppeteerClickPreview {
            element: format!("button {}", input.selector),
            summary: Some(format!("Click {} on {}.", input.selector, self.page().url)),
        })
    }

    async fn puppeteer_click(
        &self,
        input: PuppeteerClickInput,
        _preview: PuppeteerClickPreview,
        work: Work,
    ) -> Result<PuppeteerClickOutput, ToolError> {
        self.element(&input.selector)?;
        let url = if input.selector == "#submit" {
            "https://example.com/home".to_owned()
        } else {
            self.page().url
        };
        let next = url.clone();
        self.set(&work, move |page| {
            if page.url != next {
                page.url = next;
                page.values.clear();
            }
        });
        Ok(PuppeteerClickOutput { url })
    }

    async fn puppeteer_fill(
        &self,
        input: PuppeteerFillInput,
        work: Work,
    ) -> Result<PuppeteerFillOutput, ToolError> {
        self.element(&input.selector)?;
        let previous = self
            .page()
            .values
            .get(&input.selector)
            .cloned()
            .unwrap_or_default();
        let (selector, value) = (input.selector.clone(), input.value);
        self.set(&work, move |page| {
            page.values.insert(selector, value);
        });
        Ok(PuppeteerFillOutput {
            selector: input.selector,
            previous_value: previous,
        })
    }

    async fn puppeteer_select(
        &self,
        input: PuppeteerSelectInput,
        work: Work,
    ) -> Result<PuppeteerSelectOutput, ToolError> {
        self.element(&input.selector)?;
        let previous = self
            .page()
            .values
            .get(&input.selector)
            .cloned()
            .unwrap_or_default();
        let (selector, value) = (input.selector.clone(), input.value);
        self.set(&work, move |page| {
            page.values.insert(selector, value);
        });
        Ok(PuppeteerSelectOutput {
            selector: input.selector,
            previous_value: previous,
        })
    }

    async fn puppeteer_hover(
        &self,
        input: PuppeteerHoverInput,
    ) -> Result<PuppeteerHoverOutput, ToolError> {
        self.element(&input.selector)?;
        Ok(PuppeteerHoverOutput {
            selector: input.selector,
        })
    }

    async fn preview_puppeteer_evaluate(
        &self,
        input: PuppeteerEvaluateInput,
    ) -> Result<PuppeteerEvaluatePreview, ToolError> {
        Ok(PuppeteerEvaluatePreview {
            script: input.script.clone(),
            summary: Some(format!(
                "Run {} characters of JavaScript.",
                input.script.len()
            )),
        })
    }

    async fn puppeteer_evaluate(
        &self,
        input: PuppeteerEvaluateInput,
        _preview: PuppeteerEvaluatePreview,
        _work: Work,
    ) -> Result<PuppeteerEvaluateOutput, ToolError> {
        let page = self.page();
        let result = match input.script.trim() {
            "document.title" => serde_json::to_string(title_of(&page.url).unwrap_or("")),
            "location.href" => serde_json::to_string(&page.url),
            other => serde_json::to_string(&format!("ran {} characters", other.len())),
        }
        .map_err(|e| ToolError::internal(e.to_string()))?;
        Ok(PuppeteerEvaluateOutput {
            result,
            console: vec!["loaded".into()],
        })
    }
}

/// The server under test, around a fresh browser.
pub fn fixture(runtime: Runtime) -> PuppeteerServer<Browser> {
    PuppeteerServer::new(Browser::demo(), runtime)
}

include!("../../../../corpus/generated/puppeteer/puppeteer_gauntlet.rs");

puppeteer_gauntlet!(fixture);

/// The gauntlet's facts (the spec's tools and examples), for the MCP test.
pub(super) static FACTS: &::toolspec_runtime::gauntlet::Facts = &PUPPETEER_GAUNTLET;
