import type { IDisplayOptions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** The Resource select of an action node. */
export function resourceParameter(options: INodePropertyOptions[], defaultValue: string): INodeProperties {
  return { displayName: 'Resource', name: 'resource', type: 'options', noDataExpression: true, options, default: defaultValue };
}

/** The Operation select shown where `show` says (a resource). */
export function operationParameter(show: IDisplayOptions['show'], options: INodePropertyOptions[], defaultValue: string): INodeProperties {
  return { displayName: 'Operation', name: 'operation', type: 'options', noDataExpression: true, displayOptions: { show }, options, default: defaultValue };
}
