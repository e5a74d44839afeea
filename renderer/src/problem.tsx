/** What went wrong, said at once (an alert): the dashboard's and the chat views' one way to show a problem. */
export function Problem(props: { text: string | undefined }) {
  return props.text ? (
    <p class="problem" role="alert">
      {props.text}
    </p>
  ) : null;
}
