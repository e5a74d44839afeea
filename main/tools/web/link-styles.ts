/**
 * How ReadDocs' markdown shows links and images. URLs are a large share of a
 * page's characters and mostly noise to a model:
 * - `references`: link text in the flow, each distinct URL once in a numbered list at the end (links within the
 *   page's site as paths: the output names the page's URL); images as their alt text;
 * - `text`: link text only, no URLs; images as their alt text;
 * - `inline`: plain markdown, `[text](url)` and `![alt](src)` where they stand.
 * (Its own module so that the tool's schema does not load the HTML libraries at start-up.)
 */
export const LINK_STYLES = ['references', 'text', 'inline'] as const;
export type LinkStyle = (typeof LINK_STYLES)[number];
