import type { ComponentChildren } from 'preact';

/**
 * A list page's filters: `children` (choices that apply at once) before a text search that applies on
 * Enter or Apply, and `after` (what the list counts) at the end.
 */
export function SearchForm(props: { id: string; placeholder: string; value: string; onInput(text: string): void; onSubmit(): void; children?: ComponentChildren; after?: ComponentChildren }) {
  return (
    <form
      class="panel filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
      <label>
        <span>Search</span>
        <input type="search" id={props.id} value={props.value} placeholder={props.placeholder} onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Apply</button>
      {props.after}
    </form>
  );
}
