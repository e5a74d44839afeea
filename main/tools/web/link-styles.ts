/**
 * How ReadDocs' markdown shows links and images. URLs are a large share of a
 * page's characters and mostly noise to a model:
 * - `references`: link text in the flow, each distinct URL once in a numbered list at the end; images as their alt text;
 * - `text`: link text only, no URLs; images as their alt text;
 * - `inline`: plain markdown, `[text](url)` and `![alt](src)` where they stand.
 * Every URL shown is absolute (resolved against the page's final URL and its `<base href>`), so a model can pass it
 * straight back to ReadDocs. (Its own module so that the tool's schema does not load the HTML libraries at start-up.)
 */
export const LINK_STYLES = ['references', 'text', 'inline'] as const;
export type LinkStyle = (typeof LINK_STYLES)[number];
