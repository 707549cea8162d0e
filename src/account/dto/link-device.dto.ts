import { DeviceIdProperty } from '../../auth/identities/dto/device-id.js';

export class LinkDeviceDto {
  @DeviceIdProperty()
  deviceId: string;
}
