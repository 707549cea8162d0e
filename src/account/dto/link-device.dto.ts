import { DeviceIdProperty } from '../../auth/dto/device-id.js';

export class LinkDeviceDto {
  @DeviceIdProperty()
  deviceId: string;
}
