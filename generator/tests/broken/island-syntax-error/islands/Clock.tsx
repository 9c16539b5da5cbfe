import type { ClockProps } from "./Clock.props.ts";

export default function Clock({ zone }: ClockProps): string {
  return `<time>${zone}</time>`
}}
