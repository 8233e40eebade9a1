import type { Bucket } from './usage-charts';
import type { GroupBy } from './usage-group';

/** How the charts bucket time and what the table groups by; each change goes to the URL. */
export function UsageViewControls({ bucket, group, isOperator, onChange }: { bucket: Bucket; group: GroupBy; isOperator: boolean; onChange: (patch: { bucket?: string; group?: string }) => void }) {
  return (
    <div className="row">
      <label className="inline">
        Chart by
        <select value={bucket} onChange={(e) => onChange({ bucket: e.target.value })}>
          <option value="day">Day</option>
          <option value="hour">Hour</option>
        </select>
      </label>
      <label className="inline">
        Group table by
        <select value={group} onChange={(e) => onChange({ group: e.target.value })}>
          <option value="key">Key</option>
          <option value="model">Model</option>
          <option value="channel">Channel</option>
          {isOperator && <option value="user">User</option>}
          {isOperator && <option value="user_model">User × model</option>}
          <option value="key_model">Key × model</option>
        </select>
      </label>
    </div>
  );
}
