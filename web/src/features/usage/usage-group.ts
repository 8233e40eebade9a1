/** What the breakdown table groups by (the API's group_by values; user groupings are the operator's). */
export type GroupBy = 'key' | 'model' | 'channel' | 'user' | 'user_model' | 'key_model';

export const GROUP_LABEL: Record<GroupBy, string> = { key: 'Key', model: 'Model', channel: 'Channel', user: 'User', user_model: 'User × model', key_model: 'Key × model' };

/** The URL's `group`, falling back to keys for a value this person may not use. */
export function groupFromParam(param: string | null, isOperator: boolean): GroupBy {
  return param === 'model' || param === 'channel' || param === 'key_model' || ((param === 'user' || param === 'user_model') && isOperator) ? param : 'key';
}
